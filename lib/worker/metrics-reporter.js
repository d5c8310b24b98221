'use strict'

const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const { histogramSource, weightedLag } = require('./loop-delay')

const RESOLUTION_MS = 10

function round (value, digits) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

// Sends heap, RSS, event-loop delay and utilization over each interval through `send`
// (returns false when the message could not go out). Stops itself once `connected()` is false.
function startMetricsReporter ({ intervalMs, send, connected }) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  let lastElu = performance.eventLoopUtilization()
  let lastAt = performance.now()

  function collect () {
    const now = performance.now()
    const delay = weightedLag(histogramSource(histogram), RESOLUTION_MS, now - lastAt)
    histogram.reset()
    const elu = performance.eventLoopUtilization()
    const utilization = performance.eventLoopUtilization(elu, lastElu).utilization
    lastElu = elu
    lastAt = now
    const mem = process.memoryUsage()
    return {
      heapUsed: mem.heapUsed,
      heapTotal: mem.heapTotal,
      rss: mem.rss,
      elP50: round(delay.elP50, 2),
      elP95: round(delay.elP95, 2),
      elP99: round(delay.elP99, 2),
      elMax: round(delay.elMax, 2),
      elu: round(utilization, 4)
    }
  }

  function stop () {
    clearInterval(timer)
    histogram.disable()
  }

  const timer = setInterval(() => {
    if (!connected()) return stop()
    send({ 'xpm:agent': 'metrics', data: collect() })
  }, intervalMs)
  // The agent must never be the reason an app stays alive.
  timer.unref()

  return { collect, stop }
}

module.exports = { startMetricsReporter, RESOLUTION_MS }
