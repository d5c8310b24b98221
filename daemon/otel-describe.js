'use strict'

const { destination } = require('../lib/shared/otel/settings')

// `xpm show`'s view of one app's telemetry: where each signal goes, and for those the daemon
// exports (metrics, logs) how the last export went and what was dropped. Pure; no
// OpenTelemetry module needed (daemon/otel-switch.js).
function describeSettings (spec, otelEnv, stats, unavailable) {
  const out = {}
  for (const signal of ['traces', 'metrics', 'logs']) {
    if (!spec.otel[signal]) { out[signal] = null; continue }
    const d = destination(spec.otel, spec.env || {}, otelEnv || {}, signal)
    out[signal] = { url: d.url, protocol: d.protocol, ...(d.disabled ? { disabled: true } : {}) }
    if (signal !== 'traces') Object.assign(out[signal], stats?.[signal] ?? { exported: 0, dropped: 0, droppedQueueFull: 0, failedExports: 0, lastExport: null })
  }
  if (unavailable) out.error = 'the OpenTelemetry packages are not installed [XPM_ERR_OTEL_MISSING]'
  return out
}

module.exports = { describeSettings }
