'use strict'

// Metrics reports on the daemon's schedule. The daemon sends { cmd: 'NODE_XPM_METRICS',
// intervalMs } when the process starts and whenever its sampling rate changes (1 s while someone
// watches, 30 s otherwise, 0 for none; see daemon/metrics/index.js). Node delivers a message
// whose cmd starts with NODE_ as 'internalMessage': the app's own process.on('message') never
// sees it, and the listener keeps nothing alive. The listener is installed at preload, before
// the channel is first read, so the first schedule is never missed.
//
// The first report comes soon after boot, so heap and event-loop figures of a new process are
// there within a second (not one full interval, 30 s when nobody watches, later): the reporter
// starts between START_MIN_MS and START_MIN_MS + START_SPREAD_MS after the app's entry has run
// (booted()), at a point picked from the pid, so 100 apps started at once neither compete with
// each other's start-up nor report in one tick; its first report follows FIRST_REPORT_MS later
// (metrics-reporter.js), then one per interval. XPM_METRICS_INTERVAL (ms, for tests and
// debugging) fixes the interval and ignores the daemon's schedule (but not its `heartbeat`:
// true asks for a report every interval even when no figure changed, see metrics-reporter.js);
// with it the reporter starts one interval after boot.
const { intervalFrom } = require('./options')

const CMD = 'NODE_XPM_METRICS'
const START_MIN_MS = 100
const START_SPREAD_MS = 500
const FIRST_REPORT_MS = 200

// Where in the spread this pid starts: consecutive pids (apps forked one after another) land far
// apart (Knuth's multiplicative hash), and the same pid always lands in the same place.
function startDelayFor (pid) {
  return START_MIN_MS + (Math.imul(pid >>> 0, 2654435761) >>> 0) % (START_SPREAD_MS + 1)
}

function followSchedule ({ ipc, env = process.env, pid = process.pid, on = (fn) => process.on('internalMessage', fn), off = (fn) => process.off('internalMessage', fn) }) {
  const fixed = env.XPM_METRICS_INTERVAL ? intervalFrom(env) : null
  let wanted = fixed // ms; null until the daemon says
  let heartbeat = false
  let coarse = false // 100 ms loop ticks at the full rate (metrics-reporter.js)
  let ready = false
  let stopped = false
  let reporter = null
  let startTimer = null

  function apply () {
    if (stopped || !ready || wanted === null) return
    if (reporter) {
      reporter.setHeartbeat(heartbeat)
      return reporter.setInterval(wanted, { coarse })
    }
    if (!wanted || !ipc.connected()) return
    const { startMetricsReporter } = require('./metrics-reporter')
    reporter = startMetricsReporter({ intervalMs: wanted, coarse, send: ipc.send, connected: ipc.connected, heartbeat, firstReportMs: fixed === null ? FIRST_REPORT_MS : null })
  }

  function onMessage (msg) {
    if (msg === null || typeof msg !== 'object' || msg.cmd !== CMD) return
    heartbeat = msg.heartbeat === true
    coarse = msg.coarse === true
    if (fixed !== null) return apply()
    const ms = Number(msg.intervalMs)
    if (!Number.isFinite(ms) || ms < 0) return
    wanted = ms === 0 ? 0 : intervalFrom({ XPM_METRICS_INTERVAL: String(ms) })
    apply()
  }
  on(onMessage)

  return {
    // The app's entry has run its first turn.
    booted () {
      if (stopped || startTimer) return
      startTimer = setTimeout(() => {
        ready = true
        apply()
      }, fixed ?? startDelayFor(pid))
      startTimer.unref()
    },
    get reporter () { return reporter },
    stop () {
      stopped = true
      clearTimeout(startTimer)
      off(onMessage)
      reporter?.stop()
    }
  }
}

module.exports = { followSchedule, startDelayFor, CMD, START_MIN_MS, START_SPREAD_MS, FIRST_REPORT_MS }
