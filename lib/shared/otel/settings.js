'use strict'

const { parseHeaders } = require('../config/otel-type')

// Where an app's telemetry goes, from three places (docs/otel.md): the app's `otel` settings win,
// then the OTEL_* variables of the app's environment (its env, or the CLI's captured one), then
// those of the daemon's own environment. Pure: values in, values out.

const DEFAULT_ENDPOINT = 'http://localhost:4318'
const DEFAULT_INTERVAL = 60000 // OTEL_METRIC_EXPORT_INTERVAL's default in the specification
const MIN_INTERVAL = 100
const SIGNAL_PATH = { traces: 'v1/traces', metrics: 'v1/metrics', logs: 'v1/logs' }

// The OTEL_* variables of an environment (a daemon keeps only these of its own, at start-up).
function otelVariables (env = {}) {
  const out = {}
  for (const [k, v] of Object.entries(env)) if (k.startsWith('OTEL_') && typeof v === 'string') out[k] = v
  return out
}

// The variable as the app sees it: its env, else the daemon's.
const pick = (name, appEnv, daemonEnv) => nonEmpty(appEnv?.[name]) ?? nonEmpty(daemonEnv?.[name])
const nonEmpty = (v) => typeof v === 'string' && v.trim() !== '' ? v.trim() : null

// The destination of one signal the daemon exports itself (metrics, logs) → { url, protocol,
// headers, intervalMs, disabled }. The signal's own variables (OTEL_EXPORTER_OTLP_LOGS_ENDPOINT…)
// come before the general ones, as the specification orders them.
function destination (otel, appEnv, daemonEnv, signal) {
  const SIG = signal.toUpperCase()
  const get = (name) => pick(name, appEnv, daemonEnv)
  const disabled = get('OTEL_SDK_DISABLED')?.toLowerCase() === 'true'
  const protocol = otel.protocol ?? get(`OTEL_EXPORTER_OTLP_${SIG}_PROTOCOL`) ?? get('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf'
  let url
  if (otel.endpoint) url = signalUrl(otel.endpoint, signal, protocol)
  else url = get(`OTEL_EXPORTER_OTLP_${SIG}_ENDPOINT`) ?? signalUrl(get('OTEL_EXPORTER_OTLP_ENDPOINT') ?? DEFAULT_ENDPOINT, signal, protocol)
  const headers = {
    ...(parseHeaders(get('OTEL_EXPORTER_OTLP_HEADERS') ?? '') ?? {}),
    ...(parseHeaders(get(`OTEL_EXPORTER_OTLP_${SIG}_HEADERS`) ?? '') ?? {}),
    ...(otel.headers ?? {})
  }
  const interval = Number(get('OTEL_METRIC_EXPORT_INTERVAL'))
  const intervalMs = Number.isFinite(interval) && interval >= MIN_INTERVAL ? Math.round(interval) : DEFAULT_INTERVAL
  return { url, protocol, headers, intervalMs, disabled }
}

// OTLP/HTTP appends the signal's path to the general endpoint; OTLP/gRPC takes it as it is (the
// service names the signal), as the specification says.
function signalUrl (endpoint, signal, protocol = 'http/protobuf') {
  if (protocol === 'grpc') return endpoint
  return endpoint.replace(/\/+$/, '') + '/' + SIGNAL_PATH[signal]
}

// The variables an app with `otel` gets on top of its environment, for the SDK that the
// bootstrap (lib/otel/bootstrap.js) starts in it (which exports traces only: the daemon exports
// the app's metrics and logs itself, unless OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER ask the
// SDK for them too). ids: { id, name, index, namespace,
// restarts }. Variables the app's env sets itself are left alone, except for the settings
// the `otel` option names, which win.
function appOtelEnv (otel, appEnv = {}, daemonEnv = {}, ids) {
  if (!otel?.traces) return {}
  const env = {}
  // the daemon's OTEL_* the app does not set (the daemon's process.env is empty: see daemon/index.js)
  for (const [k, v] of Object.entries(otelVariables(daemonEnv))) if (appEnv[k] === undefined) env[k] = v
  if (otel.endpoint) {
    env.OTEL_EXPORTER_OTLP_ENDPOINT = otel.endpoint
    const protocol = otel.protocol ?? pick('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', appEnv, daemonEnv) ?? pick('OTEL_EXPORTER_OTLP_PROTOCOL', appEnv, daemonEnv)
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = signalUrl(otel.endpoint, 'traces', protocol)
  }
  if (otel.protocol) {
    env.OTEL_EXPORTER_OTLP_PROTOCOL = otel.protocol
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL = otel.protocol
  }
  if (otel.headers) {
    const current = parseHeaders(pick('OTEL_EXPORTER_OTLP_HEADERS', appEnv, daemonEnv) ?? '') ?? {}
    env.OTEL_EXPORTER_OTLP_HEADERS = Object.entries({ ...current, ...otel.headers }).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(',')
  }
  if (otel.sampler) {
    env.OTEL_TRACES_SAMPLER = otel.sampler.sampler
    if (otel.sampler.arg !== null) env.OTEL_TRACES_SAMPLER_ARG = otel.sampler.arg
  }
  env.XPM_OTEL = JSON.stringify({ app: ids.name, id: ids.id, instance: ids.index, namespace: ids.namespace ?? null, restarts: ids.restarts ?? 0 })
  return env
}

// appOtelEnv() of one instance (daemon/model/instance.js); its context holds the daemon's OTEL_*.
function instanceOtelEnv ({ spec, context, id, name, index, restarts }) {
  if (!spec.otel) return {}
  return appOtelEnv(spec.otel, spec.env, context?.otelEnv, { id, name, index, namespace: spec.namespace, restarts })
}

module.exports = { instanceOtelEnv, otelVariables, destination, appOtelEnv, signalUrl, DEFAULT_ENDPOINT, DEFAULT_INTERVAL }
