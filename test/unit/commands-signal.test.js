'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { normalizeSignal, sendSignal } = require('../../daemon/commands/signal')

test('signal names: any case, with or without SIG; unknown names and non-strings are refused', () => {
  assert.equal(normalizeSignal('SIGUSR2'), 'SIGUSR2')
  assert.equal(normalizeSignal('usr1'), 'SIGUSR1')
  assert.equal(normalizeSignal('sigterm'), 'SIGTERM')
  for (const bad of ['SIGNOPE', '', 'kill -9', 9, null, undefined]) {
    assert.throws(() => normalizeSignal(bad), { code: 'XPM_ERR_BAD_ARGUMENT' }, String(bad))
  }
})

test('sendSignal signals running processes and reports the others', () => {
  const got = []
  const running = { id: 0, name: 'a', index: 0, pid: 42, status: 'online', signal: (s) => { got.push(s); return true } }
  const stopped = { id: 1, name: 'a', index: 1, pid: 0, status: 'stopped', signal: () => false }
  const sup = { resolve: () => [running, stopped] }
  const res = sendSignal(sup, 'a', 'hup')
  assert.deepEqual(got, ['SIGHUP'])
  assert.equal(res.signal, 'SIGHUP')
  assert.deepEqual(res.sent.map((s) => s.pid), [42])
  assert.deepEqual(res.skipped.map((s) => s.status), ['stopped'])
})
