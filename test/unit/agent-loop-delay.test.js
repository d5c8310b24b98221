'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createHistogram } = require('node:perf_hooks')
const { weightedLag, histogramSource } = require('../../lib/agent/loop-delay')
const { intervalFrom, forgetPreload } = require('../../lib/agent/options')

const idle = (n) => Array.from({ length: n }, () => 10.2)

// A real histogram of tick lengths given in ms, read the way the reporter reads it.
function source (ticksMs) {
  const h = createHistogram()
  for (const ms of ticksMs) h.record(Math.round(ms * 1e6))
  return histogramSource(h)
}

const near = (actual, expected, tolerance = 0.05) => Math.abs(actual - expected) <= tolerance

test('an idle loop has a lag of a fraction of a millisecond', () => {
  const lag = weightedLag(source(idle(98)), 10, 1000)
  assert.ok(near(lag.elP50, 0.2) && near(lag.elP99, 0.2) && near(lag.elMax, 0.2), JSON.stringify(lag))
})

test('one 200 ms stall in a second reaches p95 and p99 but not p50 (time-weighted)', () => {
  const lag = weightedLag(source([...idle(78), 210]), 10, 1006)
  assert.ok(near(lag.elP99, 200, 0.5), `p99 ${lag.elP99}`)
  assert.ok(near(lag.elP95, 200, 0.5), `p95 ${lag.elP95}`)
  assert.ok(near(lag.elMax, 200, 0.5), `max ${lag.elMax}`)
  assert.ok(lag.elP50 < 1, `p50 ${lag.elP50}`)
})

test('wall time no sample accounts for (lost by reset) counts as one stall', () => {
  // 78 idle ticks cover 796 ms of a 1000 ms interval: a 204 ms tick went unrecorded.
  const lag = weightedLag(source(idle(78)), 10, 1000)
  assert.ok(lag.elP99 > 190 && lag.elP99 < 200, `p99 ${lag.elP99}`)
  assert.ok(lag.elP50 < 1, `p50 ${lag.elP50}`)
})

test('partial ticks at the interval ends are not a stall', () => {
  const lag = weightedLag(source(idle(97)), 10, 97 * 10.2 + 15)
  assert.ok(lag.elMax < 1, `max ${lag.elMax}`)
})

test('no samples and no elapsed time give zeros, never negatives', () => {
  assert.deepEqual(weightedLag(source([]), 10), { elP50: 0, elP90: 0, elP95: 0, elP99: 0, elMax: 0 })
  assert.equal(weightedLag(source([9.5, 9.8]), 10).elMax, 0)
})

test('a stall lost by reset() with no samples at all still shows', () => {
  const lag = weightedLag(source([]), 10, 1000)
  assert.equal(lag.elP99, 990)
  assert.equal(lag.elP50, 990)
})

test('a loop stalled most of the time shows it at p50 too', () => {
  const one = weightedLag(source([...idle(40), 600]), 10, 1008)
  assert.ok(near(one.elP50, 590, 1), `p50 ${one.elP50}`)
  // Seven 100 ms stalls among 30 idle ticks: 70% of the time.
  const many = weightedLag(source([...idle(30), ...Array(7).fill(100)]), 10, 1006)
  assert.ok(near(many.elP50, 90, 1), `p50 ${many.elP50}`)
  assert.ok(near(many.elP99, 90, 1), `p99 ${many.elP99}`)
})

test('between percentile points the figure is an upper bound', () => {
  // 200 ticks of 10.2 ms and 100 of 12 ms: the 12 ms ticks cover 37% of the time, but the map
  // only has points at 50% and 75%, so p50 may come out as 2 ms instead of 0.2 ms.
  const lag = weightedLag(source([...idle(200), ...Array(100).fill(12)]), 10)
  assert.ok(near(lag.elP95, 2), `p95 ${lag.elP95}`)
  assert.ok(lag.elP50 >= 0.15 && lag.elP50 <= 2.05, `p50 ${lag.elP50}`)
})

test('histogramSource gives count, sum, max, p50, p95 in ms and the percentile points', () => {
  const src = source([5, 10, 10, 210])
  assert.equal(src.count, 4)
  assert.ok(near(src.sum, 235, 0.5))
  assert.ok(near(src.max, 210, 0.5))
  assert.ok(near(src.p50, 10))
  assert.ok(near(src.p95, 210, 0.5))
  const points = [...src.points()]
  assert.deepEqual(points[0][0], 0)
  assert.deepEqual(points.at(-1)[0], 100)
  assert.ok(near(points.at(-1)[1] / 1e6, 210, 0.5))
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
  const file = '/abs/lib/agent/agent.js'
  assert.deepEqual(forgetPreload(['--max-old-space-size=64', '--require', file, '-r', '/other.js'], file),
    ['--max-old-space-size=64', '-r', '/other.js'])
  assert.deepEqual(forgetPreload(['-r', file, `--require=${file}`, '--inspect'], file), ['--inspect'])
  assert.deepEqual(forgetPreload(['--require'], file), ['--require'])
})
