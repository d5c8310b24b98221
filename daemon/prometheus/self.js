'use strict'

const fsp = require('node:fs/promises')
const v8 = require('node:v8')
const { PerformanceObserver, constants, performance } = require('node:perf_hooks')
const { Histogram } = require('prom-client')

// The daemon's own process and Node figures (or xpm-runtime's), under the names prom-client's
// collectDefaultMetrics gives them, so that a Node dashboard works on xpm. Not collectDefaultMetrics
// itself: it reads /proc synchronously at each scrape and keeps a 10 ms event-loop timer running
// from the moment it is called. Here everything is taken once per scrape, asynchronously
// (sample(), before the families render), and nothing runs between scrapes but the GC observer,
// which the first scrape starts (an observer of GC events, no timer). prom-client's
// nodejs_active_resources_total is left out (promtool refuses _total on a gauge: the sum of
// nodejs_active_resources says the same), and so are its event-loop lag quantiles (they need
// the 10 ms timer).
const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb'
}
const KB = 1024

// → { sample (): Promise, close () }; registers the families on `registry`.
function selfFamilies (registry, { proc = process.platform === 'linux' ? '/proc/self' : null } = {}) {
  const startTime = Math.round(Date.now() / 1000 - process.uptime())
  const [major, minor, patch] = process.versions.node.split('.').map(Number)
  let now = null // this scrape's figures
  let maxFds = null // read once, at the first scrape

  const family = (name, type, help, values) => registry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => ({ name, help, type, aggregator: 'sum', values: now ? values(now).filter((v) => Number.isFinite(v.value)) : [] }),
    reset () {}
  })
  const one = (value) => [{ labels: {}, value }]

  family('process_cpu_user_seconds_total', 'counter', 'Total user CPU time spent in seconds.', (f) => one(f.cpu.user / 1e6))
  family('process_cpu_system_seconds_total', 'counter', 'Total system CPU time spent in seconds.', (f) => one(f.cpu.system / 1e6))
  family('process_cpu_seconds_total', 'counter', 'Total user and system CPU time spent in seconds.', (f) => one((f.cpu.user + f.cpu.system) / 1e6))
  family('process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds.', () => one(startTime))
  family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', (f) => one(f.status?.VmRSS ?? process.memoryUsage.rss()))
  family('process_virtual_memory_bytes', 'gauge', 'Virtual memory size in bytes.', (f) => f.status ? one(f.status.VmSize) : [])
  family('process_heap_bytes', 'gauge', 'Process heap size in bytes.', (f) => f.status ? one(f.status.VmData) : [])
  family('process_open_fds', 'gauge', 'Number of open file descriptors.', (f) => f.fds === null ? [] : one(f.fds))
  family('process_max_fds', 'gauge', 'Maximum number of open file descriptors.', () => maxFds === null ? [] : one(maxFds))
  family('nodejs_eventloop_lag_seconds', 'gauge', 'Lag of event loop in seconds (at the scrape: the wait for a setImmediate).', (f) => one(f.lag))
  family('nodejs_active_resources', 'gauge', 'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.',
    (f) => [...f.resources].map(([type, value]) => ({ labels: { type }, value })))
  family('nodejs_heap_size_total_bytes', 'gauge', 'Process heap size from Node.js in bytes.', (f) => one(f.heap.total_heap_size))
  family('nodejs_heap_size_used_bytes', 'gauge', 'Process heap size used from Node.js in bytes.', (f) => one(f.heap.used_heap_size))
  family('nodejs_external_memory_bytes', 'gauge', 'Node.js external memory size in bytes.', (f) => one(f.heap.external_memory))
  family('nodejs_version_info', 'gauge', 'Node.js version info.', () => [{ labels: { version: process.version, major, minor, patch }, value: 1 }])

  const gc = new Histogram({ name: 'nodejs_gc_duration_seconds', help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.', labelNames: ['kind'], buckets: [0.001, 0.01, 0.1, 1, 2, 5], registers: [registry] })
  let observer = null
  const observeGc = () => {
    observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gc.observe({ kind: GC_KINDS[entry.detail?.kind] ?? 'unknown' }, entry.duration / 1000)
    })
    observer.observe({ entryTypes: ['gc'] })
  }

  return {
    async sample () {
      if (!observer) observeGc()
      const t0 = performance.now()
      const [lag, fds, status, limits] = await Promise.all([
        new Promise(setImmediate).then(() => (performance.now() - t0) / 1000),
        proc ? fsp.readdir(`${proc}/fd`).then((names) => names.length - 1, () => null) : null, // less the directory's own
        proc ? fsp.readFile(`${proc}/status`, 'utf8').then(parseStatus, () => null) : null,
        proc && maxFds === null ? fsp.readFile(`${proc}/limits`, 'utf8').then(parseMaxFds, () => null) : maxFds
      ])
      maxFds = limits
      const resources = new Map()
      for (const type of process.getActiveResourcesInfo?.() ?? []) resources.set(type, (resources.get(type) ?? 0) + 1)
      now = { cpu: process.cpuUsage(), heap: v8.getHeapStatistics(), lag, fds, status, resources }
    },
    done () { now = null },
    close () { observer?.disconnect(); observer = null }
  }
}

// /proc/self/status "VmRSS:   123456 kB" lines → { VmRSS, VmSize, VmData } in bytes (the RSS
// from here, not process.memoryUsage(), which reads /proc/self/stat synchronously)
function parseStatus (text) {
  const out = {}
  for (const m of text.matchAll(/^(VmRSS|VmSize|VmData):\s+(\d+) kB$/gm)) out[m[1]] = Number(m[2]) * KB
  return out
}

function parseMaxFds (text) {
  const m = /^Max open files\s+(\d+)/m.exec(text)
  return m ? Number(m[1]) : null
}

module.exports = { selfFamilies }
