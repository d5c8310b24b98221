'use strict'

const { isReady, wantedDown } = require('../readiness')

// The orchestrator's probes, served on the metrics endpoint's port (daemon/prometheus):
//   /livez   the runtime's event loop answers (it does while the apps drain after SIGTERM: a
//            liveness failure would have the container killed in the middle of a graceful stop);
//   /readyz  every app that should be online is online and ready. Not before the runtime has
//            started its apps (markStarted), never once it is shutting down (SIGTERM: the apps
//            drain, the pod should leave the Service's endpoints). Instances stopped on purpose
//            (`xpm stop`, a one-shot job that finished) are not waited for; errored ones are.
// Pure over the supervisor's state: each answer is computed when asked, nothing polls.
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
      const waiting = []
      for (const inst of supervisor.allInstances()) {
        if (!wantedDown(inst) && !isReady(inst)) waiting.push(`${inst.label} ${inst.status}`)
      }
      if (waiting.length) return { ok: false, body: `not ready: ${waiting.slice(0, 20).join(', ')}${waiting.length > 20 ? `, and ${waiting.length - 20} more` : ''}\n` }
      return { ok: true, body: 'ready\n' }
    }
  }
}

module.exports = { createProbes }
