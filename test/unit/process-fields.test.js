'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { isFieldList, projector, wants } = require('../../lib/shared/process-fields')
const { LIST_FIELDS } = require('../../lib/cli/render-list')
const { SHOW_FIELDS } = require('../../lib/cli/render-show')
const { MONIT_FIELDS } = require('../../lib/cli/monit/model')

const row = {
  id: 3,
  name: 'api',
  status: 'online',
  cpu: 1.5,
  memory: 100,
  extraPids: [7],
  metrics: { heapUsed: 1, heapTotal: 2, elP99: 3, at: 9 },
  spec: { script: 'a.js', env: { BIG: 'x'.repeat(1000) }, args: [] },
  history: [{ at: 1 }]
}

test('a projection keeps the named fields, one key deep for dotted names', () => {
  assert.deepEqual(projector(['id', 'cpu', 'missing'])(row), { id: 3, cpu: 1.5 })
  assert.deepEqual(projector(['id', 'metrics.heapUsed', 'metrics.elu'])(row), { id: 3, metrics: { heapUsed: 1 } })
  assert.deepEqual(projector(['spec.script', 'spec.args'])(row), { spec: { script: 'a.js', args: [] } })
  assert.deepEqual(projector(['metrics.heapUsed'])({ metrics: null }), { metrics: null })
  assert.deepEqual(projector(['metrics', 'metrics.heapUsed'])(row), { metrics: row.metrics }, 'the whole field wins')
})

test('field lists are checked: names, at most 64, one dot', () => {
  for (const good of [['id'], LIST_FIELDS, SHOW_FIELDS, MONIT_FIELDS]) assert.equal(isFieldList(good), true)
  for (const bad of [[], 'id', ['a.b.c'], ['__proto__.x'], ['a b'], [1], Array(65).fill('id'), ['x'.repeat(65)]]) assert.equal(isFieldList(bad), false, JSON.stringify(bad))
})

test('wants: whether history is asked for', () => {
  assert.equal(wants(null, 'history'), true)
  assert.equal(wants(SHOW_FIELDS, 'history'), false)
  assert.equal(wants(['history'], 'history'), true)
})

test('the table, show and monit ask for a fraction of a full row', () => {
  const full = JSON.stringify(row).length
  for (const fields of [LIST_FIELDS, SHOW_FIELDS, MONIT_FIELDS]) assert.ok(JSON.stringify(projector(fields)(row)).length < full / 3)
})
