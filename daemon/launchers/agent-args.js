'use strict'

const path = require('node:path')

const AGENT = path.join(__dirname, '..', '..', 'lib', 'agent', 'agent.js')
const OTEL_BOOTSTRAP = path.join(__dirname, '..', '..', 'lib', 'otel', 'bootstrap.js')

// The agent is preloaded into every Node worker: with `metrics: false` it only keeps the reload's
// keep-alive drain (the instance's env carries XPM_AGENT_METRICS=0).
// source_map_support: Node's own --enable-source-maps. otel (traces): the OpenTelemetry SDK's
// bootstrap first, so its hooks are in place before the agent or the app load a module.
function nodeExecArgv (spec) {
  const args = spec.nodeArgs || []
  const sourceMaps = spec.sourceMapSupport === true && !args.includes('--enable-source-maps') ? ['--enable-source-maps'] : []
  const otel = spec.otel?.traces ? ['--require', OTEL_BOOTSTRAP] : []
  return [...args, ...sourceMaps, ...otel, '--require', AGENT]
}

// XPM_AGENT=0 in the app's env turns the agent off (see lib/agent/agent.js).
function hasAgent (env) {
  return env.XPM_AGENT !== '0'
}

module.exports = { nodeExecArgv, hasAgent, AGENT, OTEL_BOOTSTRAP }
