'use strict'

const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const { histogramSource, weightedLag } = require('./loop-delay')

const RESOLUTION_MS = 10

// Sends heap, RSS, event-loop delay and utilization over each interval through `send`
// (returns false when the message could not go out). Once `connected()` is false it stops and
// calls `onDisconnect`: one timer serves both, as every extra callback a second is JS that
// TurboFan may end up optimizing (see loop-delay.js).
function startMetricsReporter ({ intervalMs, send, connected, onDisconnect = () => {} }) {
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
    // Rounded inline, not by a helper called five times a tick (see loop-delay.js on TurboFan).
    return {
      heapUsed: mem.heapUsed,
      heapTotal: mem.heapTotal,
      rss: mem.rss,
      elP50: Math.round(delay.elP50 * 100) / 100,
      elP95: Math.round(delay.elP95 * 100) / 100,
      elP99: Math.round(delay.elP99 * 100) / 100,
      elMax: Math.round(delay.elMax * 100) / 100,
      elu: Math.round(utilization * 10000) / 10000
    }
  }

  function stop () {
    clearInterval(timer)
    histogram.disable()
  }

  const timer = setInterval(() => {
    if (!connected()) {
      stop()
      return onDisconnect()
    }
    send({ 'xpm:agent': 'metrics', data: collect() })
  }, intervalMs)
  // The agent must never be the reason an app stays alive.
  timer.unref()

  return { collect, stop }
}

module.exports = { startMetricsReporter, RESOLUTION_MS }
