'use strict'

// When a freshly launched process counts as ready (daemon/model/wait-ready.js), at the
// listen_timeout deadline: a launch takes a process that is still running as online with a
// warning (as PM2; under heavy load boots outlast any deadline and kills would feed a restart
// storm), while a readiness probe that has not passed and a reload's replacement stay strict.
// The deadline's timer is injected: no time passes.
const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { waitUntilReady } = require('../../daemon/model/wait-ready')

// A process handle whose agent will report its boot (reportsBoot), which has not booted yet.
function slowHandle () {
  const handle = new EventEmitter()
  Object.assign(handle, { pid: 4242, reportsBoot: true, isBooted: false, exited: false, announcesListening: true })
  return handle
}

// setTimeout/clearTimeout that only fire when the test says so.
function manualTimers () {
  const pending = new Set()
  return {
    setTimeout: (fn) => { const t = { fn }; pending.add(t); return t },
    clearTimeout: (t) => { pending.delete(t) },
    fireAll: () => { for (const t of [...pending]) { pending.delete(t); t.fn() } },
    get pending () { return pending.size }
  }
}

const base = { listenTimeout: 8000, label: 'web[3] (pid 4242)' }

test('a launch whose entry has not run at listen_timeout, still alive: online with a slow_start warning', async () => {
  const timers = manualTimers()
  const handle = slowHandle()
  const waiting = waitUntilReady(handle, { ...base, aliveIsReady: true, timers })
  timers.fireAll()
  const how = await waiting
  assert.equal(how.by, 'timeout')
  assert.equal(how.warningKind, 'slow_start')
  assert.match(how.warning, /^web\[3\] \(pid 4242\) had not run its entry \(its first turn\) within listen_timeout \(8000 ms\) but is running; taken as online, as PM2 does/)
  assert.equal(handle.listenerCount('booted') + handle.listenerCount('exit'), 0, 'every listener removed')
})

test('a launch that must listen (its predecessor did) and has not: online with a warning too', async () => {
  const timers = manualTimers()
  const handle = slowHandle()
  handle.isBooted = true
  const waiting = waitUntilReady(handle, { ...base, expectListen: true, aliveIsReady: true, timers })
  timers.fireAll()
  const how = await waiting
  assert.match(how.warning, /had not listened within listen_timeout \(8000 ms\)/)
})

test('a reload replacement (no aliveIsReady) that has not run its entry or listened: rejected, the old worker keeps the slot', async () => {
  for (const expectListen of [false, true]) {
    const timers = manualTimers()
    const waiting = waitUntilReady(slowHandle(), { ...base, expectListen, timers })
    timers.fireAll()
    await assert.rejects(waiting, (err) => {
      assert.equal(err.code, 'XPM_ERR_START_FAILED')
      assert.equal(err.details.reason, 'timeout')
      assert.match(err.message, expectListen ? /waited for it to listen/ : /waited for its entry to run/)
      return true
    })
  }
})

test('a launch with a readiness probe that has not passed at listen_timeout stays strict: rejected', async () => {
  const timers = manualTimers()
  const readiness = { kind: 'tcp', port: 9, interval: 1000, failureThreshold: 1, successThreshold: 1, initialDelay: 0 }
  const waiting = waitUntilReady(slowHandle(), { ...base, aliveIsReady: true, readiness, probe: async () => ({ ok: false, detail: 'refused' }), timers })
  timers.fireAll()
  await assert.rejects(waiting, { code: 'XPM_ERR_START_FAILED', message: /was not ready after 8000 ms/ })
})

test('a launch that boots before the deadline is ready by its boot, and the deadline is cleared', async () => {
  const timers = manualTimers()
  const handle = slowHandle()
  const waiting = waitUntilReady(handle, { ...base, aliveIsReady: true, timers })
  handle.isBooted = true
  handle.emit('booted')
  assert.deepEqual(await waiting, { by: 'booted' })
  assert.equal(timers.pending, 0)
})

test('a launch that exits before the deadline still fails as exited', async () => {
  const timers = manualTimers()
  const handle = slowHandle()
  const waiting = waitUntilReady(handle, { ...base, aliveIsReady: true, timers })
  handle.emit('exit', { code: 1, signal: null })
  await assert.rejects(waiting, (err) => err.details.reason === 'exited' && /exited with code 1 before it was ready/.test(err.message))
})

test('wait_ready without \'ready\': online at the deadline with a wait_ready warning, launch or replacement', async () => {
  for (const aliveIsReady of [false, true]) {
    const timers = manualTimers()
    const waiting = waitUntilReady(slowHandle(), { ...base, waitReady: true, aliveIsReady, timers })
    timers.fireAll()
    const how = await waiting
    assert.equal(how.warningKind, 'wait_ready')
    assert.match(how.warning, /sent no 'ready' message within listen_timeout/)
  }
})

test('a process refused for listening on another app\'s port (portTaken) is not ready by its listen, boot or ready message: its exit fails with XPM_ERR_PORT_TAKEN', async () => {
  for (const waitReady of [false, true]) {
    const timers = manualTimers()
    const handle = slowHandle()
    const waiting = waitUntilReady(handle, { ...base, waitReady, aliveIsReady: true, timers })
    handle.portTaken = 'listened on port 3000, where app "a" listens already (a[0], pid 7); it was stopped'
    handle.emit('listening', { address: '::', port: 3000 })
    handle.emit('message', 'ready')
    handle.isBooted = true
    handle.emit('booted')
    handle.exited = true
    handle.emit('exit', { code: 0, signal: null })
    await assert.rejects(waiting, { code: 'XPM_ERR_PORT_TAKEN', message: 'web[3] (pid 4242) listened on port 3000, where app "a" listens already (a[0], pid 7); it was stopped' })
  }
})
