'use strict'

// The official OTLP exporters for the daemon's own export (metrics, logs), chosen by protocol,
// each wrapped so that its outcome is counted: records exported, records dropped (a failed
// export is not retried past what the exporter itself does: 503 and 429 with backoff within
// its timeout), the last export's result. The daemon's process.env is empty (daemon/index.js),
// so every setting is passed, never read from the environment.
const PACKAGES = {
  metrics: { 'http/json': '@opentelemetry/exporter-metrics-otlp-http', 'http/protobuf': '@opentelemetry/exporter-metrics-otlp-proto', grpc: '@opentelemetry/exporter-metrics-otlp-grpc' },
  logs: { 'http/json': '@opentelemetry/exporter-logs-otlp-http', 'http/protobuf': '@opentelemetry/exporter-logs-otlp-proto', grpc: '@opentelemetry/exporter-logs-otlp-grpc' }
}
const CLASSES = { metrics: 'OTLPMetricExporter', logs: 'OTLPLogExporter' }
const TIMEOUT_MS = 10000

// signal: 'metrics' | 'logs'; dest: lib/shared/otel/settings.js destination(). → { exporter, stats }
function createExporter (signal, dest, now = Date.now) {
  const protocol = PACKAGES[signal][dest.protocol] ? dest.protocol : 'http/protobuf'
  const Exporter = require(PACKAGES[signal][protocol])[CLASSES[signal]]
  // grpc takes the collector's address, not the HTTP path of one signal
  const url = protocol === 'grpc' ? dest.url.replace(/\/v1\/(metrics|logs)$/, '') : dest.url
  const inner = new Exporter({ url, headers: protocol === 'grpc' ? undefined : dest.headers, timeoutMillis: TIMEOUT_MS, concurrencyLimit: 4 })
  const stats = { exported: 0, dropped: 0, droppedQueueFull: 0, failedExports: 0, lastExport: null, inFlight: 0 }
  const exporter = {
    export (items, done) {
      const n = count(signal, items)
      stats.inFlight += n
      inner.export(items, (result) => {
        stats.inFlight -= n
        const ok = result.code === 0
        if (ok) stats.exported += n
        else { stats.dropped += n; stats.failedExports++ }
        stats.lastExport = { at: now(), ok, records: n, ...(ok ? {} : { error: String(result.error?.message ?? result.error ?? 'failed').slice(0, 300) }) }
        done(result)
      })
    },
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    shutdown: () => inner.shutdown(),
    // the metric reader asks the exporter which temporality and aggregation it wants
    selectAggregationTemporality: inner.selectAggregationTemporality?.bind(inner),
    selectAggregation: inner.selectAggregation?.bind(inner)
  }
  if (!exporter.selectAggregationTemporality) delete exporter.selectAggregationTemporality
  if (!exporter.selectAggregation) delete exporter.selectAggregation
  return { exporter, stats, protocol }
}

// Data points of a metrics export, or log records.
function count (signal, items) {
  if (signal === 'logs') return items.length
  let n = 0
  for (const sm of items.scopeMetrics || []) for (const m of sm.metrics) n += m.dataPoints.length
  return n
}

module.exports = { createExporter }
