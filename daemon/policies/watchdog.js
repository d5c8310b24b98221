'use strict'

const { configBytes, configDuration, formatMb } = require('../../lib/shared/quantity')

// The watchdog's judgement of one process: is its event loop blocked, is its heap too big? Pure:
// the agent's reports and a clock in, a verdict out.
//
// max_event_loop_delay. Every report carries the loop delay p99 over the interval since the one
// before (lib/agent/loop-delay.js); an agent under a watchdog reports every interval, changed
// figures or not (heartbeat). The loop is blocked when its delay stayed above the limit for a
// whole window: walking back from now, the reports (each covering the time since the previous
// one) all had p99 above the limit, and together they cover at least `windowMs`. A loop that is
// blocked right now cannot report at all, so the silence since the last report counts too, as a
// delay at least that long, once the report is overdue by more than the limit. With a 1 s limit
// and 1 s reports the window is 3 s: a loop blocked for good is caught about 3 s after its last
// report; one blocked for 5 s is caught while it is still blocked.
//
//   reports: [{ at, p99 }], oldest first (ms; p99 null when unknown)
//   since:   when the process could first have reported (online + the agent's start delay)
// → null, or { p99, silentMs, reason: 'event loop blocked: p99 1.8 s' }
const WINDOW_REPORTS = 3

function windowFor (limit, intervalMs) {
  return Math.max(WINDOW_REPORTS * intervalMs, limit)
}

function judgeLoop ({ limit, reports, since, now, intervalMs = 1000, windowMs = windowFor(limit, intervalMs) }) {
  if (!limit) return null
  const last = reports.length ? reports[reports.length - 1].at : since
  const silentMs = Math.max(0, now - last)
  let covered = 0
  let lowest = Infinity
  if (silentMs - intervalMs > limit) {
    covered += silentMs
    lowest = silentMs
  } else if (silentMs > 2 * intervalMs) {
    return null // late, but not by more than the limit: the window is broken
  }
  for (let i = reports.length - 1; i >= 0 && covered < windowMs; i--) {
    const { at, p99 } = reports[i]
    if (typeof p99 !== 'number' || !(p99 > limit)) break
    const previous = i > 0 ? reports[i - 1].at : since
    covered += Math.max(0, at - previous)
    lowest = Math.min(lowest, p99)
  }
  if (covered < windowMs || lowest === Infinity) return null
  const silent = silentMs - intervalMs > limit
  return {
    p99: lowest,
    silentMs: silent ? silentMs : 0,
    reason: silent
      ? `event loop blocked: p99 ≥ ${seconds(lowest)}, no report (max_event_loop_delay ${configDuration(limit)})`
      : `event loop blocked: p99 ${seconds(lowest)} (max_event_loop_delay ${configDuration(limit)})`
  }
}

// 1.8 s, 250 ms: a delay as the reason shows it
function seconds (ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}

// max_heap: the V8 heap in use above the limit in HEAP_REPORTS reports in a row (one report over
// may be garbage about to be collected).
//   heaps: the heapUsed of the latest reports, oldest first
// → null, or { heapUsed, reason: 'heap (1.6G > 1.5G)' }
const HEAP_REPORTS = 2

function judgeHeap ({ limit, heaps }) {
  if (!limit || heaps.length < HEAP_REPORTS) return null
  const recent = heaps.slice(-HEAP_REPORTS)
  if (!recent.every((h) => typeof h === 'number' && h > limit)) return null
  const heapUsed = recent[recent.length - 1]
  return { heapUsed, reason: `heap (${formatMb(heapUsed)} > ${configBytes(limit)})` }
}

// How many reports to keep per process: enough for the longest window.
function reportsToKeep (limit, intervalMs = 1000) {
  return Math.max(HEAP_REPORTS, Math.ceil(windowFor(limit ?? 0, intervalMs) / intervalMs) + 2)
}

module.exports = { judgeLoop, judgeHeap, windowFor, reportsToKeep, seconds, WINDOW_REPORTS, HEAP_REPORTS }
