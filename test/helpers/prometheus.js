'use strict'

// Shared by the exposition's unit test and its promtool check: the metric names xpm exposes,
// samples as daemon/metrics holds them, and a parser of the text format's sample lines.
const assert = require('node:assert/strict')

const NAMES = [
  'xpm_process_up', 'xpm_process_ready', 'xpm_process_restarts_total', 'xpm_process_cpu_seconds_total',
  'xpm_process_resident_memory_bytes', 'xpm_process_heap_used_bytes', 'xpm_process_heap_total_bytes',
  'xpm_process_event_loop_delay_seconds', 'xpm_process_event_loop_utilization', 'xpm_process_start_time_seconds'
]

// Samples as daemon/metrics holds them, by id.
function stubMetrics () {
  const points = new Map()
  return {
    points,
    fresh: async () => {},
    latest: (id) => points.get(id) ?? null,
    cpuSeconds: (id) => points.has(id) ? 1.25 + id : null
  }
}

const point = { cpu: 3, memory: 50e6, heapUsed: 10e6, heapTotal: 20e6, rss: 50e6, elP50: 0.5, elP90: 1.5, elP95: 2, elP99: 12, elMax: 40, elu: 0.25, at: 1 }

// name{labels} value lines → [{ name, labels, value }]
function samples (text) {
  return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(l)
    assert.ok(m, `a sample line: ${l}`)
    const labels = {}
    for (const [, k, v] of (m[2] || '').matchAll(/(\w+)="([^"]*)"/g)) labels[k] = v
    return { name: m[1], labels, value: Number(m[3]) }
  })
}

module.exports = { NAMES, stubMetrics, point, samples }
