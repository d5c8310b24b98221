'use strict'

const { waitUntilReady } = require('./wait-ready')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

// When a freshly forked process of an instance counts as ready: wait_ready's message, its
// listen (cluster), the readiness probe's gate, or having stayed up a moment (wait-ready.js).
function readinessOf (inst, handle, { signal = null, label = `${inst.label} (pid ${handle.pid})`, aliveIsReady = false } = {}) {
  const spec = inst.spec
  return waitUntilReady(handle, {
    waitReady: spec.waitReady,
    expectListen: handle.announcesListening && inst.app.listens,
    listenTimeout: spec.listenTimeout,
    settleMs: Math.min(spec.minUptime ?? SPEC_DEFAULTS.minUptime, 1000),
    label,
    signal,
    aliveIsReady,
    readiness: spec.readiness ?? null,
    probe: spec.readiness && inst.context.prober ? () => inst.context.prober.probe(spec.readiness, inst.probeTarget(handle), { role: 'readiness' }) : null
  })
}

module.exports = { readinessOf }
