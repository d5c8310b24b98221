'use strict'

const { isReady, isWantedUp } = require('./model/predicates')
const { describeProbe } = require('../lib/shared/config/health-types')
const { STATUS } = require('./model/process-state')

// Why an instance is not ready, in words, for `/readyz` (daemon/runtime/probes.js) and for a
// `depends_on` start that gives up on a dependency (daemon/dependencies.js). Pure.
// null: ready, or not wanted up (stopped by the user, a one-shot job that exited 0).
function whyNotReady (inst) {
  if (failedJob(inst)) return `the job ${exitWords(inst.lastExit)}`
  if (!isWantedUp(inst) || finishedJob(inst) || isReady(inst)) return null
  if (inst.status === STATUS.ONLINE) {
    // online but failing its readiness probe: which probe, and its last result
    const probe = inst.spec.readiness ? `readiness probe ${describeProbe(inst.spec.readiness)}` : 'readiness'
    return `${probe} failing: ${inst.readiness?.reason ?? 'no result yet'}`
  }
  const last = inst.lastExit
  const after = last && (inst.status === STATUS.WAITING || inst.status === STATUS.ERRORED) ? ` after ${last.reason || exitWords(last)}` : ''
  return `${inst.status}${after}`
}

const isJob = (inst) => inst.spec.autorestart === false
// a job's process that ended by itself, not stopped by the user (model/instance.js: endedItself)
const exitedByItself = (inst) => isJob(inst) && inst.status === STATUS.STOPPED && inst.endedItself === true && Boolean(inst.lastExit)
const failedExit = (e) => e.code !== 0 || Boolean(e.signal)

// A one-shot job that ran to its end: exit 0 is done, anything else failed.
function finishedJob (inst) { return exitedByItself(inst) && !failedExit(inst.lastExit) }
function failedJob (inst) { return exitedByItself(inst) && failedExit(inst.lastExit) }

function exitWords (e) {
  return e.signal ? `was ended by signal ${e.signal}` : `exited with code ${e.code}`
}

// "api[0] (pid 41): readiness probe GET /healthz failing: GET /healthz → 503"
function describeNotReady (inst) {
  const why = whyNotReady(inst)
  return why && `${inst.label}${inst.pid ? ` (pid ${inst.pid})` : ''}: ${why}`
}

module.exports = { whyNotReady, describeNotReady, finishedJob, failedJob }
