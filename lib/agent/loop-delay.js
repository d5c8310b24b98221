'use strict'

// Event-loop delay figures from a monitorEventLoopDelay() histogram.
//
// Three Node 20 behaviours shape this file:
// - The histogram holds one sample per timer tick (`resolution` ms apart when idle), so a 200 ms
//   stall is 1 sample among ~80 in a second and plain sample percentiles (p99 = 10 ms) hide it.
//   Samples are weighted by the wall time they span: p99 is the lag the loop exceeded for at most
//   1% of the interval, i.e. the delay a callback arriving at a random moment would see.
// - reset() also forgets the previous tick's time, so the first tick after it records nothing and
//   a stall starting right after a report would be lost. The wall time no sample accounts for is
//   added back as one sample when it exceeds two ticks (below that it is the partial ticks at the
//   interval's ends).
// - JS the agent runs every second eventually gets optimized by TurboFan, and the first
//   optimization in an otherwise idle app costs it ~4 MiB of RSS. So when no tick was long (the
//   usual case) only a few native getters are read; the weighted walk over the histogram's
//   `percentiles` map (finest near the top) runs only after a stall, when the app itself has been
//   busy running JS anyway.

const NS_PER_MS = 1e6

// The event-loop delay histogram wakes the app every `resolution` ms: 10 ms at the full rate
// (about 0.5 % of a core for an idle app, 100 wake-ups a second), 1 s when reports are slow
// (nobody is watching: the figures still catch stalls, at almost no cost).
const RESOLUTION_MS = 10
const SLOW_RESOLUTION_MS = 1000
const SLOW_FROM_MS = 5000 // report intervals from this long on use the slow resolution
// coarse: 100 ms ticks at the full rate (the daemon asks for it when a `jlist` wants fresh
// figures of every process, not a dashboard the loop's fine detail): 10 wake-ups a second, and
// a stall of 100 ms or more still shows.
const COARSE_RESOLUTION_MS = 100
function resolutionFor (intervalMs, { coarse = false } = {}) {
  if (intervalMs >= SLOW_FROM_MS) return SLOW_RESOLUTION_MS
  return coarse ? COARSE_RESOLUTION_MS : RESOLUTION_MS
}

// What weightedLag() needs from a histogram, in ms: { count, sum, max, p50, p90, p95, points() },
// points() giving the Map percentile → tick length (ns), read only when needed.
function histogramSource (histogram) {
  const count = histogram.count
  if (count === 0) return { count, sum: 0, max: 0, p50: 0, p90: 0, p95: 0, points: () => null }
  return {
    count,
    sum: histogram.mean * count / NS_PER_MS,
    max: histogram.max / NS_PER_MS,
    p50: histogram.percentile(50) / NS_PER_MS,
    p90: histogram.percentile(90) / NS_PER_MS,
    p95: histogram.percentile(95) / NS_PER_MS,
    points: () => histogram.percentiles
  }
}

// A tick's lag is its length beyond the resolution. Each step between two percentile points is
// taken as that share of the samples at the upper value (an upper bound). elapsedMs: wall time
// of the interval, to recover a tick reset() dropped.
function weightedLag (source, resolutionMs, elapsedMs) {
  const { count, sum, max } = source
  const unaccounted = elapsedMs === undefined ? 0 : elapsedMs - sum
  let extra = unaccounted > 2 * resolutionMs ? unaccounted : 0
  if (extra === 0 && max <= 2 * resolutionMs) {
    // No tick was long: they weigh nearly the same, and each spans >= 1% of a 1 s interval.
    return {
      elP50: Math.max(0, source.p50 - resolutionMs),
      elP90: Math.max(0, (source.p90 ?? source.p95) - resolutionMs),
      elP95: Math.max(0, source.p95 - resolutionMs),
      elP99: Math.max(0, max - resolutionMs),
      elMax: Math.max(0, max - resolutionMs)
    }
  }
  const points = source.points()
  const spans = []
  const weights = []
  let total = extra
  let previous = 0
  if (points) {
    for (const [percentile, ns] of points) {
      const span = ns / NS_PER_MS
      const weight = (percentile - previous) / 100 * count * span
      previous = percentile
      if (weight > 0) {
        spans.push(span)
        weights.push(weight)
        total += weight
      }
    }
  }
  if (total === 0) return { elP50: 0, elP90: 0, elP95: 0, elP99: 0, elMax: 0 }

  // Longest ticks first, until half the interval is covered.
  let elMax, elP99, elP95, elP90, elP50, lag
  let covered = 0
  let i = spans.length - 1
  while (elP50 === undefined && (i >= 0 || extra > 0)) {
    let span
    if (extra > 0 && (i < 0 || spans[i] < extra)) {
      span = extra
      covered += extra
      extra = 0
    } else {
      span = spans[i]
      covered += weights[i]
      i--
    }
    lag = span > resolutionMs ? span - resolutionMs : 0
    if (elMax === undefined) elMax = lag
    if (elP99 === undefined && covered >= total * 0.01) elP99 = lag
    if (elP95 === undefined && covered >= total * 0.05) elP95 = lag
    if (elP90 === undefined && covered >= total * 0.1) elP90 = lag
    if (covered >= total * 0.5) elP50 = lag
  }
  return { elP50: elP50 ?? lag, elP90: elP90 ?? lag, elP95: elP95 ?? lag, elP99: elP99 ?? lag, elMax }
}

module.exports = { histogramSource, weightedLag, resolutionFor, RESOLUTION_MS, COARSE_RESOLUTION_MS, SLOW_RESOLUTION_MS }
