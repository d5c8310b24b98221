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
// - JS that runs many times a second gets optimized by TurboFan, and the first optimization in an
//   otherwise idle app costs it ~4 MiB of RSS. So the distribution is read in one call (the
//   histogram's `percentiles` map, finest near the top) and walked once, in one function.

const NS_PER_MS = 1e6

// { count, sum (ms), points: Map percentile → tick length (ns), ascending } of a histogram.
function histogramSource (histogram) {
  const count = histogram.count
  if (count === 0) return { count, sum: 0, points: null }
  return { count, sum: histogram.mean * count / NS_PER_MS, points: histogram.percentiles }
}

// A tick's lag is its length beyond the resolution. Each step between two percentile points is
// taken as that share of the samples at the upper value (an upper bound). elapsedMs: wall time
// of the interval, to recover a tick reset() dropped.
function weightedLag ({ count, sum, points }, resolutionMs, elapsedMs) {
  const unaccounted = elapsedMs === undefined ? 0 : elapsedMs - sum
  let extra = unaccounted > 2 * resolutionMs ? unaccounted : 0
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
  if (total === 0) return { elP50: 0, elP95: 0, elP99: 0, elMax: 0 }

  // Longest ticks first, until half the interval is covered.
  let elMax, elP99, elP95, elP50, lag
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
    if (covered >= total * 0.5) elP50 = lag
  }
  return { elP50: elP50 ?? lag, elP95: elP95 ?? lag, elP99: elP99 ?? lag, elMax }
}

module.exports = { histogramSource, weightedLag }
