'use strict'

const { STATUS } = require('./process-state')

// The one place that answers "is this instance wanted up / up / ready" for every part of the daemon that asks
// (prometheus, /readyz, depends_on, health, policies, persistence). "Wanted" comes from the
// intent the user set (Instance#wanted, written by the App's commands only), never from a status.

function isWantedUp (instance) {
  return instance.wanted === true
}

// A process of the slot runs and took the slot (launching or online).
function isUp (instance) {
  return instance.status === STATUS.ONLINE || instance.status === STATUS.LAUNCHING
}

// Ready to take traffic: online (start-up readiness passed: listening, the `ready` message with
// wait_ready, or the agent's boot, then the readiness probe if any; daemon/wait-ready.js) and,
// with a readiness probe, still passing it (daemon/health marks an online process not ready
// after failure_threshold failures in a row).
function isReady (instance) {
  return instance.status === STATUS.ONLINE && (instance.readiness?.ready ?? true)
}

module.exports = { isWantedUp, isUp, isReady }
