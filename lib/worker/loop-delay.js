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
// - Code that runs hot gets optimized by TurboFan, and the first optimization in an otherwise idle
//   app costs it ~4.5 MiB of RSS. So only the top few samples are read one by one; the rest of
//   the distribution is taken as equal-weight samples and read with a single percentile() call.

const NS_PER_MS = 1e6
const TOP_SAMPLES = 8

// The histogram as { count, sum, valueAt(rank) } in ms, rank 1 = smallest. HdrHistogram answers
// percentile(p) with rank int(p / 100 * count + 0.5), so (k - 0.25) / count lands on rank k.
function histogramSource (histogram) {
  const count = histogram.count
  return {
    count,
    sum: count > 0 ? histogram.mean * count / NS_PER_MS : 0,
    valueAt: (rank) => histogram.percentile((rank - 0.25) / count * 100) / NS_PER_MS
  }
}

// source: { count, sum, valueAt(rank) } of tick lengths in ms; a tick's lag is its length beyond
// the resolution. elapsedMs: wall time of the interval, to recover a tick reset() dropped.
function weightedLag ({ count, sum, valueAt }, resolutionMs, elapsedMs) {
  const unaccounted = elapsedMs === undefined ? 0 : elapsedMs - sum
  const extra = unaccounted > 2 * resolutionMs ? unaccounted : 0
  if (count === 0 && extra === 0) return { elP50: 0, elP95: 0, elP99: 0, elMax: 0 }
  const topCount = Math.min(count, TOP_SAMPLES)
  const top = [] // longest first
  for (let i = 0; i < topCount; i++) top.push(valueAt(count - i))
  if (extra > 0) {
    const at = top.findIndex((span) => span < extra)
    top.splice(at === -1 ? top.length : at, 0, extra)
  }
  const total = sum + extra
  const lag = (span) => Math.max(0, span - resolutionMs)

  // The lag exceeded for at most `fraction` of the interval.
  const exceededFor = (fraction) => {
    const target = total * fraction
    let covered = 0
    for (const span of top) {
      covered += span
      if (covered >= target) return lag(span)
    }
    const restCount = count - topCount
    if (restCount <= 0) return lag(top[top.length - 1])
    const needed = Math.ceil((target - covered) / ((total - covered) / restCount))
    return lag(valueAt(Math.max(1, restCount - needed + 1)))
  }

  return { elP50: exceededFor(0.5), elP95: exceededFor(0.05), elP99: exceededFor(0.01), elMax: lag(top[0]) }
}

module.exports = { histogramSource, weightedLag, TOP_SAMPLES }
