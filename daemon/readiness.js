'use strict'

const { STATUS } = require('./process-state')

// Whether an instance is ready to take traffic: the one definition that `xpm_process_ready`
// (daemon/prometheus), the runtime's /readyz (daemon/runtime/probes.js) and `depends_on`
// (daemon/supervisor.js) all read.
//
// An instance is ready once it is online: it passed its start-up readiness (listening, the
// `ready` message with wait_ready, or the agent's boot, then its readiness probe if it has one;
// daemon/wait-ready.js), and, with a readiness probe, still passes it (daemon/health marks an
// online process not ready after failure_threshold failures in a row).
function isReady (instance) {
  return instance.status === STATUS.ONLINE && (instance.readiness?.ready ?? true)
}

// Whether the user (or a one-shot job's own end) left this instance down on purpose: it is not
// expected to be ready. Stopped instances are; errored ones are not (they should run, and do not).
function wantedDown (instance) {
  return instance.status === STATUS.STOPPED || instance.status === STATUS.STOPPING
}

module.exports = { isReady, wantedDown }
