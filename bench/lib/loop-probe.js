'use strict'

// Preloaded (NODE_OPTIONS=--require) into the daemons of the scale measure: the longest event-loop
// stall of each second, written to XPM_BENCH_LOOP_FILE as [[epoch ms, stall ms], …] (the last ten
// minutes). A no-op in any other process that inherits NODE_OPTIONS (CLIs, apps).
const fs = require('node:fs')
const { monitorEventLoopDelay } = require('node:perf_hooks')

const RESOLUTION_MS = 10
const DAEMONS = /(daemon[\\/]index\.js|pm2[\\/]lib[\\/]Daemon\.js)$/

if (process.env.XPM_BENCH_LOOP_FILE && DAEMONS.test(process.argv[1] || '')) {
  const file = process.env.XPM_BENCH_LOOP_FILE
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  const seconds = []
  setInterval(() => {
    // max is the longest gap between two checks: the resolution plus the stall.
    seconds.push([Date.now(), Math.max(0, histogram.max / 1e6 - RESOLUTION_MS)])
    histogram.reset()
    if (seconds.length > 600) seconds.shift()
    fs.writeFile(file, JSON.stringify(seconds), () => {})
  }, 1000).unref()
}
