'use strict'

// Instrumentations off unless the app's environment names them: file-system spans swamp every
// trace (as the OpenTelemetry docs warn), net and dns add a span to each outgoing connection and
// lookup beside the http/undici span that already covers it, and runtime-node samples the event
// loop and observes every garbage collection (a callback each) for metrics that the daemon
// exports from outside (it is kept when the SDK exports metrics itself).
// OTEL_NODE_ENABLED_INSTRUMENTATIONS, when set, decides alone (the package reads it, as it reads
// OTEL_NODE_DISABLED_INSTRUMENTATIONS); a config's `enabled: false` would override the variable,
// so none is given then.
const OFF_BY_DEFAULT = ['fs', 'net', 'dns', 'runtime-node']

function defaultsOff (env) {
  if ((env.OTEL_NODE_ENABLED_INSTRUMENTATIONS || '').trim() !== '') return {}
  const off = OFF_BY_DEFAULT.filter((name) => name !== 'runtime-node' || (env.OTEL_METRICS_EXPORTER || '').trim() === '')
  return Object.fromEntries(off.map((name) => [`@opentelemetry/instrumentation-${name}`, { enabled: false }]))
}

module.exports = { defaultsOff, OFF_BY_DEFAULT }
