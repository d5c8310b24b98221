'use strict'

// xpm's own per-process variables: what the daemon sets in one process's environment (its tree
// tags, its ids, the agent's switches that follow from its app's spec, a probe's or a hook's
// event). A CLI run inside an app (a deploy agent under xpm) has them in its environment; none of
// them is a setting of the user's, so the CLI never captures them into the apps it starts, and
// the daemon never hands an app's saved ones to its probes and hooks (docs/ecosystem.md#env).
// The user's own knobs are not here and travel as any variable does: XPM_HOME, XPM_METRICS,
// XPM_SILENT, XPM_DEBUG, XPM_AGENT, XPM_METRICS_INTERVAL.
const INTERNAL_NAMES = Object.freeze([
  'XPM_TREE', // lib/shared/tree-tag.js
  'XPM_LAUNCH', // lib/shared/tree-tag.js
  'XPM_UNTRACKED', // lib/shared/tree-tag.js: a treekill: false tree
  'XPM_ID', // daemon/model/instance.js
  'XPM_APP_NAME', // daemon/model/instance.js
  'XPM_PROBES', // daemon/model/instance.js: the agent answers probes
  'XPM_AGENT_METRICS', // daemon/model/instance.js: the app's `metrics: false`
  'XPM_REUSE_PORT', // the app's `reuse_port: true`
  'XPM_OTEL', // lib/shared/otel/settings.js: the app's ids for its OpenTelemetry resource
  'XPM_PROBE', // daemon/health/probes.js: an exec probe's role
  'XPM_PROBE_PID', // daemon/health/probes.js
  'XPM_UPDATE_DETACHED' // lib/cli/update-detached.js
])
const INTERNAL_PREFIX = 'XPM_EVENT' // XPM_EVENT and XPM_EVENT_*: an on_event hook's event (daemon/hooks)

const internal = new Set(INTERNAL_NAMES)

function isInternal (name) {
  return internal.has(name) || name === INTERNAL_PREFIX || name.startsWith(INTERNAL_PREFIX + '_')
}

// A copy of env without xpm's per-process variables.
function withoutInternals (env = {}) {
  const out = {}
  for (const [k, v] of Object.entries(env)) if (!isInternal(k)) out[k] = v
  return out
}

module.exports = { INTERNAL_NAMES, INTERNAL_PREFIX, isInternal, withoutInternals }
