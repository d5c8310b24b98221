'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createHistogram } = require('node:perf_hooks')
const { weightedLag, histogramSource } = require('../../lib/worker/loop-delay')
const { intervalFrom, forgetPreload } = require('../../lib/worker/options')

const idle = (n) => Array.from({ length: n }, () => 10.2)

// The same shape histogramSource() gives, from a plain array of tick lengths in ms.
function source (samples) {
  const sorted = samples.slice().sort((a, b) => a - b)
  const reads = []
  return {
    count: sorted.length,
    sum: sorted.reduce((a, b) => a + b, 0),
    valueAt: (rank) => { reads.push(rank); return sorted[rank - 1] },
    reads
  }
}

test('an idle loop has a lag of a fraction of a millisecond', () => {
  const lag = weightedLag(source(idle(98)), 10, 1000)
  assert.ok(Math.abs(lag.elP99 - 0.2) < 1e-9)
  assert.ok(Math.abs(lag.elMax - 0.2) < 1e-9)
})

test('one 200 ms stall in a second reaches p95 and p99 but not p50 (time-weighted)', () => {
  const lag = weightedLag(source([...idle(78), 210]), 10, 1006)
  assert.equal(lag.elP99, 200)
  assert.equal(lag.elP95, 200)
  assert.ok(lag.elP50 < 1)
  assert.equal(lag.elMax, 200)
})

test('wall time no sample accounts for (lost by reset) counts as one stall', () => {
  // 78 idle ticks cover 796 ms of a 1000 ms interval: a 204 ms tick went unrecorded.
  const lag = weightedLag(source(idle(78)), 10, 1000)
  assert.ok(lag.elP99 > 190 && lag.elP99 < 200, `p99 ${lag.elP99}`)
})

test('partial ticks at the interval ends are not a stall', () => {
  const lag = weightedLag(source(idle(97)), 10, 97 * 10.2 + 15)
  assert.ok(lag.elMax < 1, `max ${lag.elMax}`)
})

test('no samples and no elapsed time give zeros, never negatives', () => {
  assert.deepEqual(weightedLag(source([]), 10), { elP50: 0, elP95: 0, elP99: 0, elMax: 0 })
  assert.equal(weightedLag(source([9.5, 9.8]), 10).elMax, 0)
})

test('a loop stalled most of the time shows it at p50 too', () => {
  const lag = weightedLag(source([...idle(40), 600]), 10, 1008)
  assert.equal(lag.elP50, 590)
  assert.equal(lag.elMax, 590)
})

test('a stall lost by reset() with no samples at all still shows', () => {
  const lag = weightedLag(source([]), 10, 1000)
  assert.equal(lag.elP99, 990)
})

test('only a handful of samples are read, however many there are', () => {
  const src = source([...idle(2000), 35, 500])
  const lag = weightedLag(src, 10, src.sum)
  assert.equal(lag.elMax, 490)
  assert.equal(lag.elP99, 490)
  assert.ok(lag.elP50 < 1)
  assert.ok(src.reads.length <= 11, `read ${src.reads.length} samples`)
})

test('the rest of the distribution is estimated from one read', () => {
  // 200 ticks of 10.2 ms and 100 of 12 ms: the 12 ms ticks cover 37% of the time, so p95 is
  // among them and p50 among the 10.2 ms ones.
  const lag = weightedLag(source([...idle(200), ...Array(100).fill(12)]), 10)
  assert.ok(Math.abs(lag.elP50 - 0.2) < 1e-9, `p50 ${lag.elP50}`)
  assert.ok(Math.abs(lag.elP95 - 2) < 1e-9)
})

test('histogramSource reads a sample back by its rank, in ms', () => {
  const h = createHistogram()
  for (const v of [5e6, 1e7, 1e7, 2.1e8]) h.record(v)
  const src = histogramSource(h)
  assert.equal(src.count, 4)
  assert.ok(Math.abs(src.sum - 235) < 0.5)
  assert.ok(Math.abs(src.valueAt(1) - 5) < 0.01)
  assert.ok(Math.abs(src.valueAt(3) - 10) < 0.01)
  assert.ok(Math.abs(src.valueAt(4) - 210) < 0.5)
})

test('intervalFrom reads XPM_METRICS_INTERVAL with a default and a floor', () => {
  assert.equal(intervalFrom({}), 1000)
  assert.equal(intervalFrom({ XPM_METRICS_INTERVAL: '' }), 1000)
  assert.equal(intervalFrom({ XPM_METRICS_INTERVAL: 'abc' }), 1000)
  assert.equal(intervalFrom({ XPM_METRICS_INTERVAL: '-5' }), 1000)
  assert.equal(intervalFrom({ XPM_METRICS_INTERVAL: '2500' }), 2500)
  assert.equal(intervalFrom({ XPM_METRICS_INTERVAL: '10' }), 100)
})

test('forgetPreload removes only the agent from execArgv, in every spelling', () => {
  const file = '/abs/lib/worker/agent.js'
  assert.deepEqual(forgetPreload(['--max-old-space-size=64', '--require', file, '-r', '/other.js'], file),
    ['--max-old-space-size=64', '-r', '/other.js'])
  assert.deepEqual(forgetPreload(['-r', file, `--require=${file}`, '--inspect'], file), ['--inspect'])
  assert.deepEqual(forgetPreload(['--require'], file), ['--require'])
})
