'use strict'

// The sampling schedule (issue 15): cost follows attention. An injected clock and timers drive
// it; a fake sampler records which pid was read when.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createMetrics, SCHEDULE_CMD } = require('../../daemon/metrics')

const { fakeClock: fakeTime, settle } = require('../helpers/fake-clock')

function setup ({ gate = null, ...options } = {}) {
  const time = fakeTime()
  const reads = [] // { pid, t }
  let inFlight = 0
  let maxInFlight = 0
  const sampler = {
    clkTck: 100,
    async sample (pid) {
      reads.push({ pid, t: time.now() })
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      try {
        if (gate) await gate()
        return { ticks: 0, startTime: 1, rss: 1000 }
      } finally {
        inFlight--
      }
    }
  }
  const metrics = createMetrics({ sampler, now: time.now, clock: () => 1e12 + time.now(), timers: time.timers, ...options })
  const readsOf = (pid) => reads.filter((r) => r.pid === pid).map((r) => r.t)
  return { metrics, time, reads, readsOf, maxInFlight: () => maxInFlight }
}

test('nobody watching: every process is read once per 30 s, and nothing in between', async () => {
  const { metrics, time, readsOf, reads } = setup()
  for (let i = 0; i < 3; i++) metrics.track(i, 100 + i)
  metrics.start()
  await time.advance(95000)
  for (let i = 0; i < 3; i++) assert.deepEqual(readsOf(100 + i), [30000, 60000, 90000])
  assert.equal(reads.length, 9)
  assert.equal(metrics.stats().agentIntervalMs, 30000)
})

test('a watcher: every process every second; it switches at once and back within one interval', async () => {
  const { metrics, time, readsOf } = setup()
  metrics.track(0, 100)
  metrics.start()
  await time.advance(10000)
  assert.deepEqual(readsOf(100), [])
  const release = metrics.watch()
  await time.advance(4500)
  // The first full-rate round comes at once (well within one interval), then one a second.
  assert.deepEqual(readsOf(100), [10000, 11000, 12000, 13000, 14000])
  assert.equal(metrics.stats().watched, true)
  release()
  release() // twice is once
  await time.advance(29000)
  // The round already armed for 15 s reads nothing: the slow schedule is back within one
  // interval, 30 s after the last round over every process.
  assert.deepEqual(readsOf(100).filter((t) => t > 14000), [])
  await time.advance(2000)
  assert.deepEqual(readsOf(100).filter((t) => t > 14000), [44000])
  assert.equal(metrics.stats().watchers, 0)
})

test('processes with a memory limit are read every second, watched or not; the others slowly', async () => {
  const { metrics, time, readsOf } = setup()
  metrics.track(0, 100, { limited: true })
  metrics.track(1, 101)
  metrics.start()
  await time.advance(5000)
  assert.deepEqual(readsOf(100), [0, 1000, 2000, 3000, 4000, 5000])
  assert.deepEqual(readsOf(101), [])
  await time.advance(26000)
  assert.equal(readsOf(100).length, 32)
  assert.deepEqual(readsOf(101), [30000])
  // No longer limited (a new spec): back to the slow schedule.
  metrics.track(0, 100, { limited: false })
  const before = readsOf(100).length
  await time.advance(20000)
  assert.ok(readsOf(100).length <= before + 1, `${readsOf(100)}`)
})

test("'sample' carries only the processes read in that round", async () => {
  const { metrics, time } = setup()
  metrics.track(0, 100, { limited: true })
  metrics.track(1, 101)
  const rounds = []
  metrics.on('sample', (map) => rounds.push([...map.keys()]))
  metrics.start()
  await time.advance(2000)
  assert.deepEqual(rounds, [[0], [0], [0]])
})

test('list and show (touch): full rate for the lease, then slow again', async () => {
  const { metrics, time, readsOf } = setup({ leaseMs: 10000 })
  metrics.track(0, 100)
  metrics.start()
  await time.advance(1000)
  metrics.touch()
  await time.advance(20000)
  const reads = readsOf(100)
  assert.deepEqual(reads.slice(0, 10), [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000])
  assert.ok(reads.every((t) => t <= 12000), `${reads}`)
  assert.equal(metrics.stats().watched, false)
})

test('fresh() samples on demand what is older than 2 s, and resolves after the sample', async () => {
  const { metrics, time, readsOf } = setup()
  metrics.track(0, 100)
  metrics.track(1, 101)
  metrics.start()
  await time.advance(5000)
  await metrics.fresh()
  assert.deepEqual(readsOf(100), [5000])
  assert.equal(metrics.latest(0).memory, 1000)
  await time.advance(1000) // one full-rate round (the lease)
  await metrics.fresh([0])
  assert.deepEqual(readsOf(100), [5000, 6000], 'fresh enough: not read again')
  await time.advance(15000)
  await metrics.fresh([1])
  assert.equal(readsOf(101).at(-1), 21000)
  assert.notEqual(readsOf(100).at(-1), 21000, 'only the ids asked for')
})

test('agents are told the schedule: 30 s, 1 s while watched, 30 s again; none for a process without the agent', async () => {
  const { metrics, time } = setup()
  const sent = []
  metrics.track(0, 100, { send: (msg) => sent.push(msg) })
  metrics.track(1, 101)
  metrics.start()
  assert.deepEqual(sent, [{ cmd: SCHEDULE_CMD, intervalMs: 30000 }])
  const release = metrics.watch()
  metrics.watch()() // a second watcher coming and going changes nothing
  assert.deepEqual(sent.map((m) => m.intervalMs), [30000, 1000])
  release()
  assert.deepEqual(sent.map((m) => m.intervalMs), [30000, 1000, 30000])
  // a `show` or `jlist` returning its figures: the full rate for the lease, then slow again
  metrics.touch([0], { agents: true })
  await time.advance(11000)
  assert.deepEqual(sent.map((m) => m.intervalMs), [30000, 1000, 30000, 1000, 30000])
  // A restart (new pid) tells the new agent.
  metrics.track(0, 102, { send: (msg) => sent.push(msg) })
  assert.equal(sent.length, 6)
})

test('the `list` table (no agent figures) samples every process at the full rate for the lease but leaves the agents slow; a `show` speeds up the agents it returns, `jlist` all of them', async () => {
  const { metrics, time, readsOf } = setup({ leaseMs: 10000 })
  const sent = new Map() // id → intervals told to its agent
  for (let i = 0; i < 3; i++) metrics.track(i, 100 + i, { send: (msg) => (sent.get(i) || sent.set(i, []).get(i)).push(msg.intervalMs) })
  metrics.start()
  await time.advance(1000)
  await metrics.fresh(null, { agents: false }) // the `list` table
  await time.advance(3000)
  assert.deepEqual(readsOf(100), [1000, 2000, 3000, 4000], 'the daemon samples at the full rate')
  assert.deepEqual([...sent.values()], [[30000], [30000], [30000]], 'no agent woken up: at the full rate each wakes its process 100 times a second')
  assert.equal(metrics.stats().agentIntervalMs, 30000)
  await metrics.fresh([1]) // `show` of one process
  assert.deepEqual([...sent.values()], [[30000], [30000, 1000], [30000]])
  await time.advance(11000)
  assert.deepEqual([...sent.values()], [[30000], [30000, 1000, 30000], [30000]], 'slow again when the lease ends')
  await metrics.fresh(null, { agents: false })
  assert.deepEqual(sent.get(1), [30000, 1000, 30000], 'a later table does not bring the shown one back')
  await metrics.fresh() // `jlist`: every agent's figures
  assert.deepEqual([...sent.values()].map((s) => s.at(-1)), [1000, 1000, 1000])
  await time.advance(11000)
  assert.deepEqual([...sent.values()].map((s) => s.at(-1)), [30000, 30000, 30000])
})

test('reads go at most 8 at a time, however many processes', async () => {
  let open = 0
  const waiters = []
  const gate = () => new Promise((resolve) => { open++; waiters.push(resolve) })
  const { metrics, maxInFlight, reads } = setup({ gate })
  for (let i = 0; i < 100; i++) metrics.track(i, 1000 + i)
  metrics.watch()
  const round = metrics.tick()
  while (reads.length < 100) {
    await settle()
    assert.ok(open - (100 - waiters.length) <= 8)
    for (const resolve of waiters.splice(0)) resolve()
  }
  assert.equal(await round, true)
  assert.equal(maxInFlight(), 8)
})

test('history is bounded per process and in total', async () => {
  const { metrics, time } = setup({ historySize: 120, historyBudget: 64 * 100 * 10 }) // 1,000 points
  for (let i = 0; i < 50; i++) metrics.track(i, 1000 + i)
  metrics.watch()
  metrics.start()
  await time.advance(200000)
  assert.equal(metrics.history(0).length, 20) // 1,000 points / 50 processes
  assert.ok(metrics.stats().historyBytes <= 64 * 100 * 10, `${metrics.stats().historyBytes}`)
  for (let i = 1; i < 50; i++) metrics.untrack(i)
  await time.advance(200000)
  assert.equal(metrics.history(0).length, 120)
  metrics.stop()
})

test('recent() seeds a dashboard: the last two minutes, bounded in total, only the fields asked for', async () => {
  const { metrics, time } = setup()
  for (let i = 0; i < 400; i++) metrics.track(i, 1000 + i)
  metrics.watch()
  metrics.start()
  await time.advance(60000)
  const ids = Array.from({ length: 400 }, (_, i) => i)
  const seed = metrics.recent([...ids, 999], { fields: ['id', 'cpu', 'metrics.heapUsed'] })
  assert.equal(seed[0].length, 19) // 8,000 points / 401 processes
  assert.deepEqual(Object.keys(seed[0][0]), ['at', 'cpu', 'heapUsed'])
  assert.deepEqual(seed[999], [])
  await time.advance(200000)
  metrics.stop()
  assert.ok(metrics.recent([0])[0].length <= 120)
})

test('issue 23: a Prometheus scrape every 15 s makes the agents report every 15 s while scrapes keep coming, and 30 s again after', async () => {
  const { metrics, time } = setup()
  const sent = []
  metrics.track(0, 100, { send: (msg) => sent.push(msg.intervalMs) })
  metrics.start()
  await metrics.fresh(null, { lease: false })
  assert.deepEqual(sent, [30000], 'one scrape says nothing about a pace')
  for (let i = 0; i < 4; i++) {
    await time.advance(15000)
    await metrics.fresh(null, { lease: false })
  }
  assert.deepEqual(sent, [30000, 15000], 'told once, at the second scrape')
  assert.equal(metrics.stats().watched, false, 'a scrape is not someone watching: no full rate')
  await time.advance(31000)
  assert.deepEqual(sent, [30000, 15000, 30000], 'scrapes stopped: back to the slow interval')
  // Scrapes further apart than the slow interval change nothing; faster than 1 s count as 1 s.
  await metrics.fresh(null, { lease: false })
  await time.advance(40000)
  await metrics.fresh(null, { lease: false })
  assert.deepEqual(sent, [30000, 15000, 30000])
  await time.advance(200)
  await metrics.fresh(null, { lease: false })
  assert.deepEqual(sent, [30000, 15000, 30000, 1000])
  metrics.stop()
})

test('issue 23: 100 processes forked one after another start reporting spread over half a second, not in one tick', () => {
  const { startDelayFor, START_MIN_MS, START_SPREAD_MS, FIRST_REPORT_MS } = require('../../lib/agent/metrics-schedule')
  const delays = Array.from({ length: 100 }, (_, i) => startDelayFor(31000 + i))
  assert.ok(delays.every((d) => d >= START_MIN_MS && d <= START_MIN_MS + START_SPREAD_MS), `${delays}`)
  assert.ok(START_MIN_MS + START_SPREAD_MS + FIRST_REPORT_MS <= 1000, 'the first report within a second of boot')
  // Ten buckets of 50 ms: none holds more than a fifth of them.
  const buckets = new Array(10).fill(0)
  for (const d of delays) buckets[Math.min(9, Math.floor((d - START_MIN_MS) / 50))]++
  assert.ok(Math.max(...buckets) <= 20, `${buckets}`)
  assert.equal(startDelayFor(4242), startDelayFor(4242))
})

test('issue 27: a watcher of some ids reads those every second and the others once per 30 s; it can change its ids', async () => {
  const { metrics, time, readsOf } = setup()
  const sent = new Map() // id → intervals told to its agent
  for (let i = 0; i < 3; i++) metrics.track(i, 100 + i, { send: (msg) => (sent.get(i) || sent.set(i, []).get(i)).push(msg.intervalMs) })
  metrics.start()
  const release = metrics.watch([1])
  await time.advance(2500)
  assert.deepEqual(readsOf(101), [0, 1000, 2000])
  assert.deepEqual(readsOf(100), [])
  assert.deepEqual([...sent.values()], [[30000], [30000, 1000], [30000]], 'only the watched one reports at the full rate')
  assert.equal(metrics.stats().watchedIds, 1)
  release.update([2])
  await time.advance(1000)
  assert.deepEqual(readsOf(101), [0, 1000, 2000])
  assert.deepEqual(readsOf(102), [3000])
  assert.deepEqual([...sent.values()], [[30000], [30000, 1000, 30000], [30000, 1000]])
  await time.advance(27000) // the slow round over every process still comes
  assert.deepEqual(readsOf(100), [30000])
  metrics.watch()() // a watcher of every process coming and going: every agent told twice
  assert.deepEqual([...sent.values()].map((s) => s.length), [3, 5, 2])
  release()
  assert.deepEqual([...sent.values()].map((s) => s.at(-1)), [30000, 30000, 30000])
  assert.equal(metrics.stats().watched, false)
  metrics.stop()
})

test('issue 27: a dashboard freshening the ids it watches is neither a lease nor a scrape', async () => {
  const { metrics, time, readsOf } = setup()
  for (let i = 0; i < 3; i++) metrics.track(i, 100 + i)
  metrics.start()
  await time.advance(3000)
  await metrics.fresh([1], { lease: false, scrape: false })
  await time.advance(2000) // figures older than 2 s are read again
  await metrics.fresh([1], { lease: false, scrape: false })
  assert.deepEqual(readsOf(101), [3000, 5000])
  assert.deepEqual(readsOf(100), [])
  assert.equal(metrics.stats().watched, false)
  assert.equal(metrics.stats().scrapeMs, null)
  metrics.stop()
})
