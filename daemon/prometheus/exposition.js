'use strict'

const { performance } = require('node:perf_hooks')
const { Registry, Gauge, Counter } = require('prom-client')
const { STATUS } = require('../model/process-state')
const { isReady } = require('../model/readiness')
const { selfFamilies } = require('./self')

// The Prometheus text exposition of the daemon's apps, built from what the daemon already holds
// in memory: the instances' status and counters, and the latest metric samples (daemon/metrics).
// A scrape reads no app's file itself (only the daemon's own /proc/self, asynchronously:
// self.js); the HTTP endpoint may first ask the sampler for figures older than 2 s
// (metrics.fresh, as `list` does, without the attention lease: see index.js).
//
// A private prom-client Registry: the daemon's own figures come from self.js (prom-client's names,
// taken once per scrape, not its default collectors). Every per-process family carries the labels
// app, id, instance; a family is collected from the instances at scrape time, so a deleted
// process disappears from the next scrape.
const LABELS = ['app', 'id', 'instance']
const RESULTS = ['success', 'failed', 'cancelled']
const noop = () => {}

function labelsOf (inst) {
  return { app: inst.name, id: String(inst.id), instance: String(inst.index) }
}

function createExposition ({ supervisor, metrics = null, version, otel = null }) {
  const registry = new Registry()
  let rows = [] // [inst, labels, latest point | null] of the scrape under way

  // Per-scrape snapshot, taken once before the families are collected.
  const snapshot = () => {
    rows = supervisor.allInstances().map((inst) => [inst, labelsOf(inst), inst.pid ? metrics?.latest(inst.id) ?? null : null])
  }

  // A family whose values come from the snapshot: value(inst, point) → a number, or null (left out).
  const family = (Type, name, help, value) => new Type({
    name,
    help,
    labelNames: LABELS,
    registers: [registry],
    collect () {
      this.reset()
      for (const [inst, labels, point] of rows) {
        const v = value(inst, point)
        if (typeof v === 'number' && Number.isFinite(v)) Type === Counter ? this.inc(labels, v) : this.set(labels, v)
      }
    }
  })

  processFamilies(family, metrics)
  registry.registerMetric(loopDelaySummary(() => rows))

  const info = new Gauge({ name: 'xpm_daemon_info', help: 'The xpm daemon serving these metrics; always 1.', labelNames: ['version'], registers: [registry] })
  info.set({ version }, 1)
  new Gauge({ // eslint-disable-line no-new
    name: 'xpm_apps',
    help: 'Apps the daemon manages (any status).',
    registers: [registry],
    collect () { this.set(supervisor.apps.size) }
  })

  if (otel) otelFamilies(registry, otel)
  const unsubscribe = countReloads(registry, supervisor)
  const self = selfFamilies(registry)

  let rendering = null // the render under way
  let next = null // the one the scrapes that came meanwhile wait for
  const renderOnce = () => {
    rendering = (async () => {
      snapshot()
      try {
        await self.sample()
        const parts = []
        for (const metric of registry.getMetricsAsArray()) {
          parts.push(await registry.getSingleMetricAsString(metric.name))
          await new Promise(setImmediate)
        }
        return parts.join('\n\n') + '\n'
      } finally {
        rows = []
        self.done()
        rendering = null
      }
    })()
    return rendering
  }

  return {
    registry,
    contentType: registry.contentType,
    // One family at a time, with a turn of the event loop in between: 1,000 processes make
    // ~12,000 lines (about 25 ms of string building), never one block of it. The families read
    // one snapshot (`rows`), so renders never overlap: a scrape that comes while one is under way
    // waits for the next render, which every scrape that came meanwhile shares (two overlapping
    // scrapes used to share one snapshot, and the first to finish cleared it under the other).
    render () {
      if (!rendering) return renderOnce()
      next ??= rendering.then(noop, noop).then(() => { next = null; return renderOnce() })
      return next
    },
    close () {
      unsubscribe()
      self.close()
    }
  }
}

// What the daemon's OpenTelemetry export sent and dropped, per app and signal (docs/otel.md);
// no series until an app has otel metrics or logs on.
function otelFamilies (registry, otel) {
  for (const [key, name, help] of [['exported', 'xpm_otel_exported_total', 'Metric points and log records the daemon sent over OTLP, by app and signal.'],
    ['dropped', 'xpm_otel_dropped_total', 'Metric points and log records the daemon could not send over OTLP (a failed export, a full queue), by app and signal.']]) {
    new Counter({ // eslint-disable-line no-new
      name,
      help,
      labelNames: ['app', 'signal'],
      registers: [registry],
      collect () {
        this.reset()
        for (const s of otel.allStats()) this.inc({ app: s.app, signal: s.signal }, s[key])
      }
    })
  }
}

// The per-process families, each value from the scrape's snapshot: (inst, latest point).
function processFamilies (family, metrics) {
  family(Gauge, 'xpm_process_up', 'Whether the process is online (1) or not (0: launching, stopping, stopped, errored, waiting restart).',
    (inst) => inst.status === STATUS.ONLINE ? 1 : 0)
  family(Gauge, 'xpm_process_ready', 'Whether the process is ready to take traffic (1) or not (0).',
    (inst) => isReady(inst) ? 1 : 0)
  family(Counter, 'xpm_process_restarts_total', 'Restarts of this process slot (crashes, restarts, reloads, policy restarts); `xpm reset` sets it back to 0.',
    (inst) => inst.restarts)
  family(Counter, 'xpm_process_cpu_seconds_total', 'CPU time (user and system) the current OS process of the slot has used, in seconds.',
    (inst, point) => point ? metrics.cpuSeconds?.(inst.id) ?? null : null)
  family(Gauge, 'xpm_process_resident_memory_bytes', 'Resident memory (RSS) of the process, in bytes.',
    (inst, point) => point?.memory ?? null)
  family(Gauge, 'xpm_process_heap_used_bytes', 'V8 heap used, as the xpm agent last reported it (Node processes with metrics on).',
    (inst, point) => point?.heapUsed ?? null)
  family(Gauge, 'xpm_process_heap_total_bytes', 'V8 heap size, as the xpm agent last reported it.',
    (inst, point) => point?.heapTotal ?? null)
  family(Gauge, 'xpm_process_event_loop_utilization', 'Share of time the event loop was busy over the agent\'s last report interval (0 to 1).',
    (inst, point) => point?.elu ?? null)
  family(Gauge, 'xpm_process_start_time_seconds', 'When the current OS process of the slot started, in seconds since the Unix epoch.',
    (inst) => inst.pid && inst.startedAt ? Math.round(performance.timeOrigin + inst.startedAt) / 1000 : null)
}

// Reload jobs by outcome, counted as they end (user reloads and policy restarts alike).
// → dispose
function countReloads (registry, supervisor) {
  const reloads = new Counter({ name: 'xpm_reloads_total', help: 'Reload jobs of an app that ended, by result: success, failed (a replacement was not ready: the old workers kept serving) or cancelled (by a stop or delete).', labelNames: ['app', 'result'], registers: [registry] })
  const counted = new Map() // app → the results it has series for
  const onReloaded = ({ app, result }) => {
    const label = RESULTS.includes(result) ? result : 'failed'
    reloads.inc({ app, result: label })
    if (!counted.has(app)) counted.set(app, new Set())
    counted.get(app).add(label)
  }
  // a deleted app's series go with it (names come and go; the series must not pile up)
  const onChange = () => {
    for (const [app, results] of counted) {
      if (supervisor.apps.has(app)) continue
      for (const result of results) reloads.remove({ app, result })
      counted.delete(app)
    }
  }
  return supervisor.subscribe({ reloaded: onReloaded, change: onChange })
}

// xpm_process_event_loop_delay_seconds: the agent reports quantiles of the loop delay over its
// last interval (lib/agent/loop-delay.js), not single observations, so this is a summary of
// quantiles 0.5, 0.9 and 0.99 without _sum and _count (which prom-client's own Summary would
// compute from observations it never gets). A plain collector object, as the Registry takes.
function loopDelaySummary (getRows) {
  const QUANTILES = [[0.5, 'elP50'], [0.9, 'elP90'], [0.99, 'elP99']]
  const name = 'xpm_process_event_loop_delay_seconds'
  const help = 'Event-loop delay of the process over the agent\'s last report interval, in seconds (quantiles weighted by wall time).'
  return {
    name,
    help,
    type: 'summary',
    aggregator: 'sum',
    get () {
      const values = []
      for (const [, labels, point] of getRows()) {
        if (!point) continue
        for (const [quantile, key] of QUANTILES) {
          const ms = point[key]
          if (typeof ms === 'number' && Number.isFinite(ms)) values.push({ labels: { ...labels, quantile }, value: ms / 1000 })
        }
      }
      return { name, help, type: 'summary', values, aggregator: 'sum' }
    },
    reset () {}
  }
}

module.exports = { createExposition }
