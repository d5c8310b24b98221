'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createMetrics } = require('../../daemon/metrics')

// A fake OS: ticks and rss per pid set by the test, a clock moved by hand.
function setup (options = {}) {
  const procs = new Map()
  const calls = []
  const clock = { t: 0 }
  const sampler = {
    clkTck: 100,
    async sample (pid) {
      calls.push(pid)
      if (options.gate) await options.gate
      const p = procs.get(pid)
      return p ? { ticks: p.ticks, startTime: p.startTime ?? 1, rss: p.rss } : null
    }
  }
  const metrics = createMetrics({ sampler, now: () => clock.t, clock: () => 1e12 + clock.t, historySize: options.historySize })
  // Someone watches: every round samples every process (the schedule itself: metrics-schedule.test.js).
  if (options.watched !== false) metrics.watch()
  return { metrics, procs, calls, clock }
}

const report = (data) => ({ 'xpm:agent': 'metrics', data })

test('CPU% is the tick delta over the time since the same pid was last sampled', async () => {
  const { metrics, procs, clock } = setup()
  procs.set(10, { ticks: 1000, rss: 5e7 })
  metrics.track(0, 10)
  await metrics.tick()
  assert.equal(metrics.latest(0).cpu, 0) // nothing to compare with yet
  assert.equal(metrics.latest(0).memory, 5e7)
  procs.get(10).ticks = 1050
  clock.t += 1000
  await metrics.tick()
  assert.equal(metrics.latest(0).cpu, 50)
  procs.get(10).ticks = 1250
  clock.t += 2000
  await metrics.tick()
  assert.equal(metrics.latest(0).cpu, 100)
  // Reading latest() twice does not change the figure ("since whoever asked last").
  assert.equal(metrics.latest(0).cpu, 100)
})

test('a reused pid (another start time) does not produce a CPU figure from the old process', async () => {
  const { metrics, procs, clock } = setup()
  procs.set(10, { ticks: 5000, rss: 1, startTime: 1 })
  metrics.track(0, 10)
  await metrics.tick()
  procs.set(10, { ticks: 20, rss: 1, startTime: 2 })
  clock.t += 1000
  await metrics.tick()
  assert.equal(metrics.latest(0).cpu, 0)
})

test('latest merges agent data with OS data; non-Node processes get CPU and memory only', async () => {
  const { metrics, procs } = setup()
  procs.set(10, { ticks: 0, rss: 6e7 })
  procs.set(11, { ticks: 0, rss: 2e6 })
  metrics.track(0, 10)
  metrics.track(1, 11)
  const data = { heapUsed: 1e6, heapTotal: 2e6, rss: 5.9e7, elP50: 0.1, elP90: 0.15, elP95: 0.2, elP99: 180, elMax: 200, elu: 0.2 }
  assert.equal(metrics.onAgentMessage(0, report(data)), true)
  await metrics.tick()
  assert.deepEqual(metrics.latest(0), { cpu: 0, memory: 6e7, ...data, at: 1e12 })
  const plain = metrics.latest(1)
  assert.equal(plain.memory, 2e6)
  assert.equal(plain.heapUsed, null)
  assert.equal(plain.elP99, null)
})

test("onAgentMessage leaves the app's own and other agent messages alone and keeps only numbers", () => {
  const { metrics } = setup()
  metrics.track(0, 10)
  assert.equal(metrics.onAgentMessage(0, 'ready'), false)
  assert.equal(metrics.onAgentMessage(0, { cmd: 'hello' }), false)
  assert.equal(metrics.onAgentMessage(0, null), false)
  assert.equal(metrics.onAgentMessage(0, { 'xpm:agent': 'drained' }), false)
  assert.equal(metrics.onAgentMessage(99, report({ heapUsed: 1 })), true) // untracked: consumed, ignored
  assert.equal(metrics.latest(99), null)
  assert.equal(metrics.onAgentMessage(0, report({ heapUsed: 'x', elP99: 3, evil: 1 })), true)
  const point = metrics.latest(0)
  assert.equal(point.heapUsed, null)
  assert.equal(point.elP99, 3)
  assert.equal('evil' in point, false)
})

test('history keeps one merged point per tick, oldest first, bounded', async () => {
  const { metrics, procs, clock } = setup({ historySize: 3 })
  procs.set(10, { ticks: 0, rss: 1 })
  metrics.track(0, 10)
  for (let i = 1; i <= 5; i++) {
    procs.get(10).rss = i
    clock.t += 1000
    await metrics.tick()
  }
  assert.deepEqual(metrics.history(0).map((p) => p.memory), [3, 4, 5])
  assert.deepEqual(Object.keys(metrics.history(0)[0]), ['at', 'cpu', 'memory', 'heapUsed', 'heapTotal', 'elP95', 'elP99', 'elu'])
  assert.deepEqual(metrics.history(42), [])
})

test('a restart (new pid, same id) keeps the history and starts CPU afresh', async () => {
  const { metrics, procs, clock } = setup()
  procs.set(10, { ticks: 0, rss: 1 })
  procs.set(20, { ticks: 9000, rss: 2 })
  metrics.track(0, 10)
  await metrics.tick()
  metrics.track(0, 20)
  clock.t += 1000
  await metrics.tick()
  assert.equal(metrics.latest(0).cpu, 0)
  assert.deepEqual(metrics.history(0).map((p) => p.memory), [1, 2])
})

test('untrack drops all state, even when a sample for it is in flight', async () => {
  let release
  const gate = new Promise((resolve) => { release = resolve })
  const { metrics, procs } = setup({ gate })
  procs.set(10, { ticks: 0, rss: 1 })
  metrics.track(0, 10)
  const ticking = metrics.tick()
  metrics.untrack(0)
  release()
  await ticking
  assert.equal(metrics.latest(0), null)
  assert.deepEqual(metrics.history(0), [])
  assert.equal(metrics.snapshot().size, 0)
})

test('a tick while the previous one still runs is skipped', async () => {
  let release
  const gate = new Promise((resolve) => { release = resolve })
  const { metrics, procs, calls } = setup({ gate })
  procs.set(10, { ticks: 0, rss: 1 })
  procs.set(11, { ticks: 0, rss: 1 })
  metrics.track(0, 10)
  metrics.track(1, 11)
  const first = metrics.tick()
  assert.equal(await metrics.tick(), false)
  assert.deepEqual(calls, [10, 11]) // both pids sampled concurrently, once
  release()
  assert.equal(await first, true)
  assert.equal(await metrics.tick(), true)
})

test("emits 'sample' with a Map of id to latest after each tick; gone pids keep their last point", async () => {
  const { metrics, procs, clock } = setup()
  procs.set(10, { ticks: 0, rss: 7 })
  metrics.track(0, 10)
  metrics.track(1, 11) // no such pid
  const seen = []
  metrics.on('sample', (map) => seen.push(map))
  await metrics.tick()
  assert.equal(seen.length, 1)
  assert.ok(seen[0] instanceof Map)
  assert.deepEqual([...seen[0].keys()], [0])
  assert.equal(seen[0].get(0).memory, 7)
  procs.delete(10)
  clock.t += 1000
  await metrics.tick()
  assert.equal(seen[1].get(0).memory, 7)
})

test('a sampler error for one pid does not stop the round', async () => {
  const { metrics, procs } = setup()
  procs.set(10, { ticks: 0, rss: 7 })
  const sample = metrics.sampler.sample
  metrics.sampler.sample = async (pid) => { if (pid === 11) throw new Error('EACCES'); return sample(pid) }
  metrics.track(0, 10)
  metrics.track(1, 11)
  assert.equal(await metrics.tick(), true)
  assert.equal(metrics.latest(0).memory, 7)
  assert.equal(metrics.latest(1), null)
})

test('the sampling timers never keep the daemon alive', () => {
  const { metrics } = setup()
  metrics.start()
  metrics.touch()
  assert.equal(metrics.timer.hasRef(), false)
  assert.equal(metrics.attention.leaseTimer.hasRef(), false)
  metrics.stop()
  assert.equal(metrics.timer, null)
})

test('agent reports carry only what changed: missing fields keep their value, null means unknown', () => {
  const { metrics } = setup()
  metrics.track(0, 10)
  metrics.onAgentMessage(0, report({ heapUsed: 1, heapTotal: 2, elP99: 3 }))
  metrics.onAgentMessage(0, report({ heapUsed: 5 }))
  assert.deepEqual([metrics.latest(0).heapUsed, metrics.latest(0).heapTotal, metrics.latest(0).elP99, metrics.latest(0).elu], [5, 2, 3, null])
  metrics.onAgentMessage(0, report({ elP99: null }))
  assert.equal(metrics.latest(0).elP99, null)
  assert.equal(metrics.latest(0).heapTotal, 2)
})
