'use strict'

const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const v8 = require('node:v8')
const { histogramSource, weightedLag, resolutionFor, RESOLUTION_MS, COARSE_RESOLUTION_MS, SLOW_RESOLUTION_MS } = require('./loop-delay')

// The RSS is read by the daemon from /proc/<pid>/stat on Linux. Reading it here there
// (process.memoryUsage(), .rss()) makes libuv open /proc/self/stat, and in an app that closed its
// stdout and stderr that file gets fd 1 or 2; libuv's uv__close() asserts fd > 2 and aborts the
// app (SIGABRT). Elsewhere libuv asks the kernel without a file (macOS task_info, …).
const RSS_HERE = process.platform !== 'linux'

// The figures of one interval: event-loop delay from a histogram at `resolution` ms (0: none),
// utilization and heap, each collect() over the time since the previous one.
function createCollector () {
  let histogram = null
  let resolution = 0
  let lastElu = performance.eventLoopUtilization()
  let lastAt = performance.now()

  function useResolution (ms) {
    if (ms === resolution) return
    histogram?.disable()
    histogram = ms ? monitorEventLoopDelay({ resolution: ms }) : null
    histogram?.enable()
    resolution = ms
    lastAt = performance.now()
  }

  function collect () {
    const now = performance.now()
    const delay = histogram ? weightedLag(histogramSource(histogram), resolution, now - lastAt) : null
    histogram?.reset()
    const elu = performance.eventLoopUtilization()
    const utilization = performance.eventLoopUtilization(elu, lastElu).utilization
    lastElu = elu
    lastAt = now
    // the heap figures of process.memoryUsage(), without its RSS read (see RSS_HERE)
    const heap = v8.getHeapStatistics()
    // Rounded inline, not by a helper called five times a tick (see loop-delay.js on TurboFan).
    return {
      heapUsed: heap.used_heap_size,
      heapTotal: heap.total_heap_size,
      rss: RSS_HERE ? process.memoryUsage.rss() : null,
      elP50: delay && Math.round(delay.elP50 * 100) / 100,
      elP90: delay && Math.round(delay.elP90 * 100) / 100,
      elP95: delay && Math.round(delay.elP95 * 100) / 100,
      elP99: delay && Math.round(delay.elP99 * 100) / 100,
      elMax: delay && Math.round(delay.elMax * 100) / 100,
      elu: Math.round(utilization * 10000) / 10000
    }
  }

  return { collect, useResolution, resolution: () => resolution }
}

// Sends heap, RSS, event-loop delay and utilization over each interval through `send`
// (returns false when the message could not go out), only the figures that changed since the
// last report that went out, and nothing when none did. setInterval(ms) changes the rate
// (0: no reports, the histogram off). Once `connected()` is false it stops and calls
// `onDisconnect`. (The agent's exit once the daemon is gone does not ride this timer: it
// listens for the channel's close, metrics or not; see exit-on-disconnect.js.)
// heartbeat: a report goes out every interval even when nothing changed, for a daemon that
// counts a missing report as a blocked loop (the watchdog, max_event_loop_delay).
// firstReportMs: the first report that long after the start instead of one interval.
function startMetricsReporter ({ intervalMs, coarse = false, send, connected, onDisconnect = () => {}, heartbeat = false, firstReportMs = null }) {
  const { collect, useResolution, resolution } = createCollector()
  let timer = null
  let current = 0
  const sent = {}

  function report () {
    if (!connected()) {
      stop()
      return onDisconnect()
    }
    const data = collect()
    const changed = {}
    let any = false
    for (const key in data) {
      if (data[key] !== sent[key]) {
        changed[key] = data[key]
        any = true
      }
    }
    if ((any || heartbeat) && send({ 'xpm:agent': 'metrics', data: changed })) Object.assign(sent, changed)
  }

  // The interval the timer runs at (armed) can lag the one asked for (current) while the first
  // report is pending.
  let armed = 0
  let firstTimer = null
  let fine = !coarse

  function arm () {
    useResolution(current ? resolutionFor(current, { coarse: !fine }) : 0)
    if (armed === current) return
    clearInterval(timer)
    timer = null
    armed = current
    if (!current) return
    timer = setInterval(report, current)
    // The agent must never be the reason an app stays alive.
    timer.unref()
  }

  function setRate (ms, { coarse = !fine } = {}) {
    current = ms
    fine = !coarse
    if (firstTimer && ms) return // the first report re-arms at the rate asked for by then
    clearTimeout(firstTimer)
    firstTimer = null
    arm()
  }

  function stop () {
    setRate(0)
  }

  // firstReportMs: one report that soon after the start (the histogram at its fine resolution
  // meanwhile, so the figures mean something), then one per interval.
  if (firstReportMs > 0 && intervalMs > 0) {
    current = intervalMs
    useResolution(RESOLUTION_MS)
    firstTimer = setTimeout(() => {
      firstTimer = null
      report()
      arm()
    }, firstReportMs)
    firstTimer.unref()
  } else {
    setRate(intervalMs)
  }
  return {
    collect,
    stop,
    setInterval: setRate,
    setHeartbeat (on) { heartbeat = on === true },
    get intervalMs () { return current },
    get resolutionMs () { return resolution() },
    get heartbeat () { return heartbeat }
  }
}

module.exports = { startMetricsReporter, resolutionFor, RESOLUTION_MS, COARSE_RESOLUTION_MS, SLOW_RESOLUTION_MS }
