'use strict'

// Whether an app's processes must track their servers for the daemon's probes (an HTTP, HTTPS
// or TCP probe, answered by the agent inside the process: lib/agent/probe.js). Exec probes need
// nothing from the process. Pure.
function needsAgentProbes (spec) {
  return [spec.readiness, spec.liveness].some((p) => p && (p.kind === 'http' || p.kind === 'https' || p.kind === 'tcp'))
}

module.exports = { needsAgentProbes }
