'use strict'

const { needsAgentProbes } = require('./probe-target')
const { instanceEnv } = require('../../lib/shared/config/instance-env')
const { withoutInternals } = require('../../lib/shared/internal-env')

// The environment a process of the slot `inst` starts with: the spec's (less xpm's own
// per-process variables a saved spec may still carry: lib/shared/internal-env.js), the
// instance's PM2 variables, then what xpm tells its agent.
function processEnv (inst) {
  const spec = inst.spec
  return {
    ...withoutInternals(spec.env),
    ...instanceEnv(spec, inst.index), // NODE_APP_INSTANCE (or instance_var), increment_var
    XPM_ID: String(inst.id),
    XPM_APP_NAME: inst.name,
    ...(needsAgentProbes(spec) ? { XPM_PROBES: '1' } : {}), // lib/agent/probe.js
    ...(spec.metrics === false ? { XPM_AGENT_METRICS: '0' } : {}),
    ...(spec.otel ? require('../../lib/shared/otel/settings').instanceOtelEnv(inst) : {}) // OTEL_*, XPM_OTEL: lib/otel/bootstrap.js
  }
}

module.exports = { processEnv }
