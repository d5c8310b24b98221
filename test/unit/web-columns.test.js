'use strict'

// The page's table columns (lib/cli/web/public/columns.js, a browser script) run in a bare
// context with an injected clock: which rows read as crash-looping.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')

function load () {
  const window = { xpmQuantity: require('../../lib/shared/quantity') }
  vm.runInNewContext(fs.readFileSync(path.join(__dirname, '../../lib/cli/web/public/columns.js'), 'utf8'), { window })
  return window.XpmColumns
}

const COLS = ['id', 'name', 'namespace', 'instance', 'mode', 'pid', 'status', 'ready', 'restarts', 'uptime']
const row = (id, restarts, uptime, status = 'online') => [id, 'app', 'default', 0, 'fork', 100 + id, status, null, restarts, uptime]

test('a restart count seen rising twice within two minutes marks the row; quiet again, it is not', () => {
  let now = 1000000
  const state = { col: Object.fromEntries(COLS.map((c, i) => [c, i])), receivedAt: now }
  const cols = load().makeColumns(state, () => now)
  cols.observe(row(0, 1, 400000))
  cols.observe(row(1, 1, 400000))
  assert.equal(cols.rowClass(row(0, 1, 400000)), '')
  now += 2000
  cols.observe(row(0, 2, 1000))
  assert.equal(cols.crashLooping(row(0, 2, 1000)), false, 'one restart is not a loop')
  now += 2000
  cols.observe(row(0, 3, 1000))
  assert.equal(cols.rowClass(row(0, 3, 1000)), 'crashloop')
  assert.equal(cols.rowClass(row(1, 1, 404000)), '', 'the healthy one')
  now += 121000
  state.receivedAt = now
  assert.equal(cols.rowClass(row(0, 3, 121000)), '', 'no rise in two minutes and up a while')
})

test('a page opened during a loop: many restarts and a short uptime are enough', () => {
  const now = 5000
  const state = { col: Object.fromEntries(COLS.map((c, i) => [c, i])), receivedAt: now }
  const cols = load().makeColumns(state, () => now)
  assert.equal(cols.crashLooping(row(0, 7, 3000)), true)
  assert.equal(cols.crashLooping(row(0, 7, null, 'waiting restart')), true)
  assert.equal(cols.crashLooping(row(0, 7, 3600000)), false, 'restarted often, long ago')
  assert.equal(cols.crashLooping(row(0, 2, 3000)), false, 'a fresh deploy')
})
