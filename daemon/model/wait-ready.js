'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { describeProbe } = require('../../lib/shared/config/health-types')
const { passReadiness } = require('./readiness-gate')

// Resolves when a freshly launched process can take traffic; rejects with the reason when it
// exits first or is not ready within listenTimeout.
//   waitReady:           the app's process.send('ready'); as in PM2, a process that sends none
//                        is taken as ready at listenTimeout, with { warning } (a command line
//                        such as `npm run build && npm start` cannot send it). Not so with a
//                        readiness probe: xpm's probes exist to say the truth, and stay strict.
//   expectListen:        the first `listening` event (a process that announces it, whose
//                        predecessor listened); not one where another app listens already
//                        (port-claims.js): that process is stopped, and fails with XPM_ERR_PORT_TAKEN
//   otherwise:           `listening`, or `booted` (the agent saw the app's entry run its first
//                        turn) — or, for a process without the agent, `online` plus settleMs
// aliveIsReady: a process still running at listenTimeout that has not done the above is taken
//                      as ready, with { warning } (a launch: start, restart, crash restart). PM2
//                      counts a fork app online at spawn. Killing it instead helps nobody: under
//                      heavy load (1,000 processes booting on two cores) boots take longer than any
//                      fixed deadline, and each kill counted as a crash restarts it, a storm that
//                      keeps the load up for ever; an entry that blocks is not mended by a restart
//                      either. Stays strict where the deadline protects users: a readiness probe
//                      that has not passed, and a reload's replacement (not aliveIsReady), which
//                      must be ready before the old worker is retired.
// readiness: a probe (docs/health.md) that must then pass too, run by probe() → { ok, detail };
//                      the whole wait, probe included, is bounded by listenTimeout, and a
//                      process that never passes fails like one that never listens.
// signal: an AbortSignal; aborting rejects with its reason and removes every listener.
// timers: { setTimeout, clearTimeout } of the listenTimeout deadline (injected by unit tests).
function waitUntilReady (handle, { waitReady = false, expectListen = false, listenTimeout = 8000, settleMs = 1000, label = 'process', signal = null, readiness = null, probe = null, aliveIsReady = false, timers = globalThis }) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    let settleTimer = null
    let gating = null // the readiness probe's wait, once the process is up
    let lastProbe = null
    const cleanup = () => {
      timers.clearTimeout(deadline)
      clearTimeout(settleTimer)
      gating?.abort()
      handle.off('exit', onExit)
      handle.off('listening', onListening)
      handle.off('message', onMessage)
      handle.off('booted', onBooted)
      signal?.removeEventListener('abort', onAbort)
    }
    const onAbort = () => { cleanup(); reject(signal.reason) }
    const finish = (how) => { cleanup(); resolve(how) }
    const done = (how) => {
      if (!readiness || !probe) return finish(how)
      if (gating) return
      // The process is up: from now on only the probe decides (and exit, and the deadline).
      handle.off('listening', onListening)
      handle.off('message', onMessage)
      handle.off('booted', onBooted)
      gating = new AbortController()
      passReadiness(readiness, probe, { signal: gating.signal, onResult: (r) => { lastProbe = r } })
        .then((r) => finish({ ...how, probe: r.detail }), () => {})
    }
    const fail = (code, message, details) => { cleanup(); reject(new XpmError(code, message, { details })) }

    const onExit = ({ code, signal }) => {
      if (handle.portTaken) return fail('XPM_ERR_PORT_TAKEN', `${label} ${handle.portTaken}`, { reason: 'port-taken' })
      const how = handle.spawnError ? handle.spawnError.message : signal ? `signal ${signal}` : `code ${code}`
      fail('XPM_ERR_START_FAILED', `${label} exited with ${how} before it was ready`, { reason: 'exited', code, signal })
    }
    // a worker that listened where another app does is being stopped (port-claims.js): its exit says so
    const onListening = (address) => { if (!waitReady && !handle.portTaken) done({ by: 'listening', address }) }
    const onMessage = (msg) => { if (waitReady && msg === 'ready' && !handle.portTaken) done({ by: 'ready' }) }
    const onBooted = () => {
      if (waitReady || expectListen || handle.portTaken) return
      if (handle.reportsBoot) return done({ by: 'booted' })
      settleTimer = setTimeout(() => done({ by: 'settled' }), settleMs)
    }
    const deadline = timers.setTimeout(() => {
      if (gating) {
        const last = lastProbe ? lastProbe.detail : `${describeProbe(readiness)}: no result yet`
        return fail('XPM_ERR_START_FAILED', `${label} was not ready after ${listenTimeout} ms (readiness probe ${last})`, { reason: 'timeout', probe: last })
      }
      if (waitReady) {
        return finish({ by: 'timeout', warningKind: 'wait_ready', warning: `${label} sent no 'ready' message within listen_timeout (${listenTimeout} ms); taken as online, as PM2 does with wait_ready` })
      }
      if (aliveIsReady && !(readiness && probe)) {
        const what = expectListen ? 'listened' : 'run its entry (its first turn)'
        return finish({ by: 'timeout', warningKind: 'slow_start', warning: `${label} had not ${what} within listen_timeout (${listenTimeout} ms) but is running; taken as online, as PM2 does (a start slowed by a busy machine, or an entry that blocks while it loads)` })
      }
      const waited = expectListen ? 'it to listen' : 'its entry to run'
      fail('XPM_ERR_START_FAILED', `${label} was not ready after ${listenTimeout} ms (waited for ${waited})`, { reason: 'timeout' })
    }, listenTimeout)

    if (handle.exited) return onExit(handle.exitInfo)
    signal?.addEventListener('abort', onAbort, { once: true })
    handle.on('exit', onExit)
    handle.on('listening', onListening)
    handle.on('message', onMessage)
    handle.on('booted', onBooted)
    if (handle.isBooted) onBooted()
  })
}

module.exports = { waitUntilReady }
