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
