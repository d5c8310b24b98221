'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { drainMessage, isDrained, CMD } = require('../../daemon/launchers/drain')

test('the drain message closes idle clients after a quarter of kill_timeout, from 50 ms to 1 s', () => {
  assert.equal(drainMessage({ killTimeout: 5000 }).idleMs, 1000)
  assert.equal(drainMessage({ killTimeout: 1600 }).idleMs, 400)
  assert.equal(drainMessage({ killTimeout: 100 }).idleMs, 50)
  assert.equal(drainMessage().cmd, CMD)
  assert.ok(CMD.startsWith('NODE_'), 'an internal message: the app\'s process.on(\'message\') never sees it')
})

test('fork mode asks the agent to close its servers and hold the process until the stop signal', () => {
  assert.deepEqual(drainMessage({ killTimeout: 3000, report: true, signal: 'SIGTERM' }), { cmd: CMD, idleMs: 750, report: true, closeServers: { signal: 'SIGTERM', holdMs: 3000 } })
  assert.equal(drainMessage({ killTimeout: 3000 }).closeServers, null)
  assert.equal(isDrained({ 'xpm:agent': 'drained' }), true)
  assert.equal(isDrained({ 'xpm:agent': 'metrics' }), false)
  assert.equal(isDrained(null), false)
})

// untilDrained with mocked timers: a process that does not answer the drain (its event loop is
// blocked) is not waited for; one that answers is, until it has drained or the limit.
test('untilDrained: no "draining" within a quarter of kill_timeout (250 ms to 1 s) ends the wait', async (t) => {
  const { EventEmitter } = require('node:events')
  const { untilDrained } = require('../../daemon/launchers/drain')
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const state = (p) => { let s = 'waiting'; p.then(() => { s = 'done' }); return () => s }
  const flush = () => new Promise((resolve) => setImmediate(resolve))

  const hung = new EventEmitter()
  const hungState = state(untilDrained(hung, { killTimeout: 8000, timeoutMs: 4000 }))
  t.mock.timers.tick(999); await flush()
  assert.equal(hungState(), 'waiting')
  t.mock.timers.tick(1); await flush()
  assert.equal(hungState(), 'done')

  const busy = new EventEmitter()
  const busyState = state(untilDrained(busy, { killTimeout: 8000, timeoutMs: 4000 }))
  busy.emit('message', { 'xpm:agent': 'draining' })
  t.mock.timers.tick(3999); await flush()
  assert.equal(busyState(), 'waiting', 'an answering process is given its drain')
  busy.emit('message', { 'xpm:agent': 'drained' }); await flush()
  assert.equal(busyState(), 'done')

  const worker = new EventEmitter()
  const workerState = state(untilDrained(worker, { killTimeout: 100, endEvents: ['disconnect'], answers: false }))
  t.mock.timers.tick(60000); await flush()
  assert.equal(workerState(), 'waiting', 'without an agent, nothing answers: the disconnect is waited for')
  worker.emit('disconnect'); await flush()
  assert.equal(workerState(), 'done')
  assert.equal(worker.listenerCount('message') + worker.listenerCount('exit') + worker.listenerCount('disconnect'), 0)
})

test('--drain-delay and XPM_DRAIN_DELAY: a duration with a unit, or a bare number of seconds as --delay', () => {
  const { parseDrainDelay } = require('../../lib/shared/drain-delay')
  assert.equal(parseDrainDelay('5', '--drain-delay'), 5000)
  assert.equal(parseDrainDelay('1.5', '--drain-delay'), 1500)
  assert.equal(parseDrainDelay('500ms', '--drain-delay'), 500)
  assert.equal(parseDrainDelay('2m', '--drain-delay'), 120000)
  assert.throws(() => parseDrainDelay('soon', '--drain-delay'), { code: 'XPM_ERR_CONFIG_INVALID', message: /--drain-delay/ })
})
