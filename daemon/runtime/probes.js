'use strict'

const { describeNotReady } = require('../not-ready')
const { dependencyState } = require('../dependencies')
const { isUp } = require('../model/predicates')

// The orchestrator's probes, served on the metrics endpoint's port (daemon/prometheus):
//   /livez   the runtime's event loop answers (it does while the apps drain after SIGTERM: a
//            liveness failure would have the container killed in the middle of a graceful stop);
//   /readyz  every app the intent wants up is up and ready. Not before the runtime has started
//            its apps (markStarted), never once it is shutting down (SIGTERM: the apps drain,
//            the pod should leave the Service's endpoints). Not ready: a process wanted up that
//            is not online and ready (errored ones included), an app that was never started
//            because a dependency failed (depends_on: it shows `stopped`, but nobody stopped
//            it), a one-shot job whose last run failed. Instances the user stopped and jobs that
//            exited 0 are not waited for.
// Pure over the supervisor's state: each answer is computed when asked, nothing polls.
const SHOWN = 20

function createProbes ({ supervisor }) {
  let started = false
  return {
    markStarted () { started = true },
    get started () { return started },
    live () {
      return { ok: true, body: 'ok\n' }
    },
    ready () {
      if (supervisor.closing) return { ok: false, body: 'not ready: shutting down, the apps are draining\n' }
      if (!started) return { ok: false, body: 'not ready: the apps are starting\n' }
      const waiting = notReady(supervisor)
      if (waiting.length) {
        const more = waiting.length > SHOWN ? `; and ${waiting.length - SHOWN} more` : ''
        return { ok: false, body: `not ready: ${waiting.slice(0, SHOWN).join('; ')}${more}\n` }
      }
      return { ok: true, body: 'ready\n' }
    }
  }
}

// One line per thing not ready, each saying why.
function notReady (supervisor) {
  const out = []
  for (const app of supervisor.apps.values()) {
    const deps = dependencyState(app)
    // a failed record outlives nothing: once some instance runs (started since by a restart),
    // the instances speak for themselves
    if (deps && !(deps.failed && app.instances.some(isUp))) {
      out.push(`${app.name}: ${deps.failed ? `not started: ${deps.reason}` : `waiting for its dependency ${deps.dependency}`}`)
      continue
    }
    for (const inst of app.instances) {
      const line = describeNotReady(inst)
      if (line) out.push(line)
    }
  }
  return out
}

module.exports = { createProbes }
