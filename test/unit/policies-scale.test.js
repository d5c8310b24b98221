'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { parseScaleChange, scaleTarget, planScale, scaleApp } = require('../../daemon/policies/scale')

test('n, +n and -n; anything else is a bad argument', () => {
  assert.deepEqual(parseScaleChange('4'), { op: 'set', n: 4 })
  assert.deepEqual(parseScaleChange('+2'), { op: 'add', n: 2 })
  assert.deepEqual(parseScaleChange('-1'), { op: 'sub', n: 1 })
  for (const bad of ['', 'max', '1.5', '++1', '2x', '-']) {
    assert.throws(() => parseScaleChange(bad), { code: 'XPM_ERR_BAD_ARGUMENT' }, bad)
  }
})

test('the target count is at least 1', () => {
  assert.equal(scaleTarget(2, { op: 'add', n: 3 }), 5)
  assert.equal(scaleTarget(4, { op: 'sub', n: 3 }), 1)
  assert.equal(scaleTarget(4, { op: 'set', n: 2 }), 2)
  assert.throws(() => scaleTarget(2, { op: 'sub', n: 2 }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /at least 1/ })
  assert.throws(() => scaleTarget(2, { op: 'set', n: 0 }), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

test('indexes stay 0..n-1: the highest go first, gaps are filled first', () => {
  assert.deepEqual(planScale([0, 1], 4), { add: [2, 3], remove: [] })
  assert.deepEqual(planScale([0, 1, 2, 3], 1), { add: [], remove: [3, 2, 1] })
  assert.deepEqual(planScale([0, 2, 3], 3), { add: [1], remove: [3] })
  assert.deepEqual(planScale([0, 1], 2), { add: [], remove: [] })
})

test('scaleApp keeps the other instances and starts new ones only when the app runs', async () => {
  const made = []
  const fakeInstance = (app, index, status) => ({
    id: 10 + index,
    app,
    index,
    status,
    stop: async function () { this.status = 'stopped'; this.stopped = true },
    start: async function () { this.status = 'online' }
  })
  const sup = new EventEmitter()
  const app = { name: 'api', spec: { name: 'api', instances: 2 }, instances: [] }
  app.instances = [fakeInstance(app, 0, 'online'), fakeInstance(app, 1, 'online')]
  const keep = app.instances[0]
  sup.apps = new Map([['api', app]])
  sup.newInstance = (a, index) => { const i = fakeInstance(a, index, 'stopped'); made.push(i); return i }
  sup.startInstances = async (list) => { for (const i of list) await i.start(); return { failures: [] } }
  sup.metrics = { untrack: () => {} }

  const up = await scaleApp(sup, 'api', '+2')
  assert.deepEqual([up.from, up.to], [2, 4])
  assert.deepEqual(app.instances.map((i) => [i.index, i.status]), [[0, 'online'], [1, 'online'], [2, 'online'], [3, 'online']])
  assert.equal(app.spec.instances, 4)

  const down = await scaleApp(sup, 'api', '-3')
  assert.deepEqual(down.removed.map((r) => r.instance), [3, 2, 1])
  assert.deepEqual(app.instances, [keep])
  assert.equal(keep.stopped, undefined)

  keep.status = 'stopped'
  const idle = await scaleApp(sup, 'api', '2')
  assert.equal(idle.started, false)
  assert.deepEqual(app.instances.map((i) => [i.index, i.status]), [[0, 'stopped'], [1, 'stopped']])
  await assert.rejects(scaleApp(sup, 'nope', '1'), { code: 'XPM_ERR_APP_NOT_FOUND' })
})
