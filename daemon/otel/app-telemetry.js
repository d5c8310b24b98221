'use strict'

const os = require('node:os')
const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics')
const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs')
const { resourceFromAttributes } = require('@opentelemetry/resources')
const api = require('@opentelemetry/api')
const { createExporter } = require('./exporters')
const { registerProcessMetrics } = require('./process-metrics')
const { followLifecycle } = require('./lifecycle-events')
const { logRecordOf } = require('../../lib/shared/otel/log-record')

// One app's telemetry exported by the daemon: its processes' figures (a MeterProvider whose
// reader collects on the export interval) and its log lines (a LoggerProvider fed by the log
// sink's live lines, and its crashes and restarts: lifecycle-events.js), both with the app's resource. Bounded: at most MAX_QUEUED log records
// wait for the exporter (the rest are counted as dropped, never queued), and the exporters'
// own timeouts and concurrency limit bound what a slow collector holds. Nothing here waits for
// the collector on the daemon's path: a line is handed over and the call returns.
const MAX_QUEUED = 2048
const BATCH = 512
const LOG_DELAY_MS = 1000

function createAppTelemetry ({ spec, dests, supervisor, metrics, logSink, logger }) {
  const name = spec.name
  const host = os.hostname()
  const resource = resourceFromAttributes({
    'service.name': name,
    'service.namespace': spec.namespace ?? 'default',
    'host.name': host,
    'xpm.app': name
  })
  const parts = { meterProvider: null, loggerProvider: null, unsubscribe: null, stats: {} }

  if (spec.otel.metrics && !dests.metrics.disabled) {
    const { exporter, stats } = createExporter('metrics', dests.metrics)
    parts.stats.metrics = stats
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: dests.metrics.intervalMs, exportTimeoutMillis: Math.min(dests.metrics.intervalMs, 30000) })
    parts.meterProvider = new MeterProvider({ resource, readers: [reader] })
    const instancesOf = () => supervisor.allInstances().filter((i) => i.name === name).map((i) => ({
      id: i.id, index: i.index, pid: i.pid, status: i.status, restarts: i.restarts, serviceInstanceId: `${host}/${name}/${i.index}`
    }))
    registerProcessMetrics(parts.meterProvider.getMeter('xpm'), { instancesOf, metrics })
  }

  if (spec.otel.logs && !dests.logs.disabled && logSink) {
    const { exporter, stats } = createExporter('logs', dests.logs)
    parts.stats.logs = stats
    const processor = new BatchLogRecordProcessor({ exporter, maxQueueSize: MAX_QUEUED, maxExportBatchSize: BATCH, scheduledDelayMillis: LOG_DELAY_MS, exportTimeoutMillis: 30000 })
    parts.loggerProvider = new LoggerProvider({ resource, processors: [processor] })
    const otelLogger = parts.loggerProvider.getLogger('xpm')
    let queued = 0 // handed to the processor, not yet to the exporter
    const wrapped = exporter.export
    exporter.export = (items, done) => { queued -= items.length; wrapped(items, done) }
    const emit = (record) => {
      if (queued >= MAX_QUEUED) { stats.dropped++; stats.droppedQueueFull++; return }
      queued++
      otelLogger.emit(record)
    }
    const offLines = logSink.subscribe({ names: new Set([name]) }, (obj) => emit(recordOf(obj)))
    const offEvents = followLifecycle(supervisor, name, emit)
    parts.unsubscribe = () => { offLines(); offEvents() }
  }

  return {
    name,
    stats: () => ({
      ...(parts.stats.metrics ? { metrics: publicStats(parts.stats.metrics) } : {}),
      ...(parts.stats.logs ? { logs: publicStats(parts.stats.logs) } : {})
    }),
    async close () {
      parts.unsubscribe?.()
      await Promise.allSettled([parts.meterProvider?.shutdown(), parts.loggerProvider?.shutdown()])
    }
  }
}

function publicStats ({ exported, dropped, droppedQueueFull, failedExports, lastExport }) {
  return { exported, dropped, droppedQueueFull, failedExports, lastExport }
}

// A line of the log sink ({ app, id, instance, pid, stream, time, line }) → an OTel log record.
function recordOf (obj) {
  const r = logRecordOf(obj.line, obj.stream)
  const record = {
    timestamp: obj.time,
    severityNumber: r.severityNumber,
    severityText: r.severityText,
    body: r.body,
    attributes: { 'xpm.id': obj.id, 'xpm.instance': obj.instance, 'process.pid': obj.pid, 'log.iostream': obj.stream === 'err' ? 'stderr' : 'stdout' }
  }
  if (r.traceId) record.context = api.trace.setSpanContext(api.ROOT_CONTEXT, { traceId: r.traceId, spanId: r.spanId, traceFlags: r.traceFlags, isRemote: true })
  return record
}

module.exports = { createAppTelemetry, recordOf, MAX_QUEUED }
