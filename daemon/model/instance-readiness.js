'use strict'

const { STATUS } = require('./process-state')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

// When a freshly forked process of an instance counts as ready: wait_ready's message, its
// listen (cluster), the readiness probe's gate, or having stayed up a moment (wait-ready.js):
// the options of that wait, for the slot's state. Pure (the probe is a closure, called later).
function readinessWait (state, handle, { signal = null, label = `${state.label} (pid ${handle.pid})`, aliveIsReady = false } = {}) {
  const spec = state.spec
  const prober = state.context.prober
  return {
    waitReady: spec.waitReady,
    expectListen: handle.announcesListening && state.app.listens,
    listenTimeout: spec.listenTimeout,
    settleMs: Math.min(spec.minUptime ?? SPEC_DEFAULTS.minUptime, 1000),
    label,
    signal,
    aliveIsReady,
    readiness: spec.readiness ?? null,
    probe: spec.readiness && prober ? () => prober.probe(spec.readiness, probeTarget(state, handle), { role: 'readiness' }) : null
  }
}

// What a probe needs to know about one of this slot's processes (daemon/health/probes.js).
function probeTarget (state, handle) {
  return { handle, spec: state.spec, id: state.id, index: state.index, name: state.name }
}

// A launch's process is ready (`how`: what the wait said): the slot turns online, unless another
// process took it or its status moved on meanwhile. Pure: effects for Instance#apply.
function decideLaunchReady (state, { handle, how }, clock) {
  if (state.handle !== handle || state.status !== STATUS.LAUNCHING) return []
  return [['set', { onlineSince: clock.wall }], ['status', STATUS.ONLINE, how?.warning ? { warning: how.warning, warningKind: how.warningKind } : {}]]
}

// The readiness probe's verdict on the current process once it is online (daemon/health):
// not ready after failure_threshold failures in a row, ready again after success_threshold
// passes. The status stays online; `xpm list` shows it as not ready. Pure.
function decideReadiness (state, { handle, ready, reason = null }, clock) {
  if (handle !== state.handle || handle.exited) return []
  if ((state.readiness?.ready ?? true) === ready) return []
  return [
    ['set', { readiness: { ready, reason, since: clock.wall } }],
    ['emit', 'readiness', { id: state.id, name: state.name, instance: state.index, pid: handle.pid, ready, reason }],
    ['emit', 'change']
  ]
}

module.exports = { readinessWait, probeTarget, decideLaunchReady, decideReadiness }
