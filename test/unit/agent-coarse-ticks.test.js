'use strict'

// The agent measures its event loop with 10 ms ticks (100 wake-ups a second) only when asked
// for the fine figures (a dashboard, a `show`); at the full rate of a `jlist`'s lease (`coarse`)
// with 100 ms ticks, and at the slow rate with 1 s ticks. lib/agent/metrics-reporter.js, metrics-schedule.js.
const test = require('node:test')
const assert = require('node:assert/strict')
const { startMetricsReporter, RESOLUTION_MS, COARSE_RESOLUTION_MS, SLOW_RESOLUTION_MS } = require('../../lib/agent/metrics-reporter')
const { followSchedule } = require('../../lib/agent/metrics-schedule')
const { waitFor } = require('../helpers/wait')
const { createMetrics } = require('../../daemon/metrics')
const { fakeClock } = require('../helpers/fake-clock')

function setup ({ leaseMs }) {
  const time = fakeClock()
  const sampler = { clkTck: 100, sample: async () => ({ ticks: 0, startTime: 1, rss: 1000 }) }
  const metrics = createMetrics({ sampler, now: time.now, clock: () => 1e12 + time.now(), timers: time.timers, leaseMs })
  return { metrics, time }
}

const ipc = { connected: () => true, send: () => true }

test('the reporter\'s tick follows the rate and the coarse flag', (t) => {
  const reporter = startMetricsReporter({ intervalMs: 1000, coarse: true, ...ipc })
  t.after(() => reporter.stop())
  assert.equal(reporter.resolutionMs, COARSE_RESOLUTION_MS, 'a jlist\'s lease: reports each second, 100 ms ticks')
  reporter.setInterval(1000, { coarse: false })
  assert.equal(reporter.resolutionMs, RESOLUTION_MS, 'watched: 10 ms ticks')
  reporter.setInterval(1000, { coarse: true })
  assert.equal(reporter.resolutionMs, COARSE_RESOLUTION_MS)
  reporter.setInterval(30000, { coarse: false })
  assert.equal(reporter.resolutionMs, SLOW_RESOLUTION_MS, 'nobody watching: 1 s ticks')
  reporter.stop()
  assert.equal(reporter.resolutionMs, 0, 'stopped: no histogram')
})

test('the daemon\'s schedule message carries the flag to the reporter', async (t) => {
  let deliver
  const schedule = followSchedule({ ipc, env: { XPM_METRICS_INTERVAL: '100' }, on: (fn) => { deliver = fn }, off: () => {} })
  t.after(() => schedule.stop())
  deliver({ cmd: 'NODE_XPM_METRICS', intervalMs: 1000, coarse: true })
  schedule.booted()
  await waitFor(() => schedule.reporter, { timeout: 5000, interval: 10, message: 'the reporter to start' })
  assert.equal(schedule.reporter.resolutionMs, COARSE_RESOLUTION_MS)
  deliver({ cmd: 'NODE_XPM_METRICS', intervalMs: 1000 })
  assert.equal(schedule.reporter.resolutionMs, RESOLUTION_MS)
})

test('a `jlist` asks every agent for reports each second with coarse loop ticks; a `show` or a watcher asks for fine ones', async () => {
  const { metrics, time } = setup({ leaseMs: 10000 })
  const sent = new Map() // id → messages told to its agent
  for (let i = 0; i < 2; i++) metrics.track(i, 100 + i, { send: (msg) => (sent.get(i) || sent.set(i, []).get(i)).push(msg) })
  metrics.start()
  const last = (id) => { const m = sent.get(id).at(-1); return m.coarse ? `${m.intervalMs} coarse` : `${m.intervalMs}` }
  await metrics.fresh() // `jlist`
  assert.deepEqual([last(0), last(1)], ['1000 coarse', '1000 coarse'], 'fresh figures each second, but no 100 wake-ups a second in every process')
  await metrics.fresh([1]) // `show` of one of them, in the same lease
  assert.deepEqual([last(0), last(1)], ['1000 coarse', '1000'])
  const release = metrics.watch([0]) // a dashboard showing the other
  assert.deepEqual([last(0), last(1)], ['1000', '1000'])
  release()
  assert.deepEqual([last(0), last(1)], ['1000 coarse', '1000'], 'back to the lease it is still under')
  await time.advance(11000)
  assert.deepEqual([last(0), last(1)], ['30000', '30000'])
})

test('Prometheus scraping every second (or faster) keeps the agents\' fine ticks; only a `jlist` asks for coarse ones', async () => {
  const { metrics, time } = setup({ leaseMs: 10000 })
  const sent = []
  metrics.track(0, 100, { send: (msg) => sent.push(msg) })
  metrics.start()
  const last = () => { const m = sent.at(-1); return m.coarse ? `${m.intervalMs} coarse` : `${m.intervalMs}` }
  await metrics.fresh(null, { lease: false })
  await time.advance(500)
  await metrics.fresh(null, { lease: false }) // a scrape pace of 1 s: the full rate
  assert.equal(last(), '1000', 'scrapes at the full rate had fine ticks before jlist asked for coarse ones')
  await metrics.fresh() // a `jlist` while the scrapes go on
  assert.equal(last(), '1000', 'the scrapes still read the fine figures')
  for (let i = 0; i < 3; i++) { // the scrapes slow down to every 15 s: 1 s ticks of their own
    await time.advance(15000)
    await metrics.fresh(null, { lease: false })
  }
  assert.equal(last(), '15000')
  await metrics.fresh() // a `jlist` meanwhile: coarse, finer than what those scrapes had
  assert.equal(last(), '1000 coarse')
  metrics.stop()
})
