'use strict'

// Issue 27: a dashboard subscribed with `changes: true` gets, after each metrics round, the rows it
// watches plus only the other rows that changed; between rounds, a changed row within
// CHANGE_PUSH_MS. The model is the real one (fake launcher: no OS process), the metrics the real
// ones on a fake OS, the clock injected.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { createMetrics } = require('../../daemon/metrics')
const { ProcessChanges, CHANGE_PUSH_MS } = require('../../daemon/commands/process-changes')
const { SUMMARY_FIELDS } = require('../../daemon/commands/subscription')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { fakeClock } = require('../helpers/fake-clock')

const FIELDS = ['id', 'name', 'status', 'pid', 'restarts', 'cpu', 'memory']

async function setup (t, { instances = 20, drop = () => false } = {}) {
  const clock = fakeClock()
  const rss = new Map() // pid → rss the fake OS reports
  const sampler = { clkTck: 100, async sample (pid) { return { ticks: 0, startTime: 1, rss: rss.get(pid) ?? 1000 } } }
  const metrics = createMetrics({ sampler, now: clock.now, clock: () => 1e12 + clock.now(), timers: clock.timers })
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor, metrics })
  t.after(() => supervisor.close())
  await supervisor.start([fakeSpec('api', { instances })])
  await waitUntil(() => supervisor.allInstances().every((i) => i.status === 'online'))
  const pushes = []
  const summaryFields = SUMMARY_FIELDS.filter((f) => FIELDS.includes(f))
  const push = (event, data) => drop(data) ? false : pushes.push({ event, data }) > 0
  const feed = new ProcessChanges({ supervisor, metrics, fields: FIELDS, summaryFields, timers: clock.timers, push })
  t.after(() => feed.close())
  return { clock, rss, metrics, supervisor, fake, feed, pushes }
}

async function waitUntil (cond) {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((resolve) => setImmediate(resolve))
  assert.ok(cond(), 'condition met')
}

const ids = (push) => push.data.rows.map((r) => r.id).sort((a, b) => a - b)
const pidOf = (supervisor, id) => supervisor.allInstances().find((i) => i.id === id).pid

test('after a round over every process: the watched rows, and of the others only those whose figures changed', async (t) => {
  const { rss, metrics, supervisor, feed, pushes } = await setup(t)
  feed.start(new Set([0, 1]))
  const first = feed.snapshot()
  assert.equal(first.length, 20, 'the subscribe reply has every row')
  assert.ok(first[0].pid > 0 && first[5].pid === undefined, 'full rows for the watched, summary rows for the others')
  await metrics.sampleAll(supervisor.allInstances().map((i) => [i.id, metrics.states.get(i.id)]), { history: false })
  // every figure moved from the reply's (nothing sampled then): one push of every row
  assert.equal(pushes.length, 1)
  assert.equal(pushes[0].event, 'processChanges')
  pushes.length = 0
  rss.set(pidOf(supervisor, 7), 5000)
  await metrics.sampleAll(supervisor.allInstances().map((i) => [i.id, metrics.states.get(i.id)]), { history: false })
  assert.deepEqual(ids(pushes[0]), [0, 1, 7], 'process 7 changed; the 17 others did not and are not sent')
  assert.deepEqual(pushes[0].data.removed, [])
  assert.equal(pushes[0].data.rows.find((r) => r.id === 7).memory, 5000)
})

test('a round over the watched ones reads no other row: a push is what is shown', async (t) => {
  const { metrics, supervisor, feed, pushes } = await setup(t)
  feed.start(new Set([3]))
  feed.snapshot()
  const toJSON = t.mock.method(Object.getPrototypeOf(supervisor.allInstances()[0]), 'toJSON')
  await metrics.sampleAll([[3, metrics.states.get(3)]], { history: false })
  assert.deepEqual(ids(pushes[0]), [3])
  assert.equal(toJSON.mock.callCount(), 1, 'one row built, not one for every process')
})

test('a status change between rounds is pushed within CHANGE_PUSH_MS, coalesced; nothing changing arms no timer', async (t) => {
  const { clock, supervisor, feed, pushes } = await setup(t, { instances: 3 })
  feed.start(new Set())
  feed.snapshot()
  assert.equal(clock.pending, 0, 'no timer while nothing changed')
  await supervisor.stop('api')
  await waitUntil(() => supervisor.allInstances().every((i) => i.status === 'stopped'))
  assert.equal(pushes.length, 0, 'not pushed at once')
  clock.advanceSync(CHANGE_PUSH_MS)
  assert.equal(pushes.length, 1, 'one push for the three stops')
  assert.deepEqual(pushes[0].data.rows.map((r) => [r.id, r.status]), [[0, 'stopped'], [1, 'stopped'], [2, 'stopped']])
  assert.equal(clock.pending, 0)
})

test('added and removed instances: new rows, then their ids in removed', async (t) => {
  const { clock, supervisor, feed, pushes } = await setup(t, { instances: 2 })
  feed.start(new Set())
  feed.snapshot()
  await supervisor.scale('api', '4')
  await waitUntil(() => supervisor.allInstances().length === 4)
  clock.advanceSync(CHANGE_PUSH_MS)
  assert.deepEqual([...new Set(pushes.flatMap((p) => p.data.rows.map((r) => r.id)))].sort(), [2, 3])
  pushes.length = 0
  await supervisor.scale('api', '2')
  await waitUntil(() => supervisor.allInstances().length === 2)
  clock.advanceSync(CHANGE_PUSH_MS)
  assert.deepEqual(pushes.flatMap((p) => p.data.removed).sort(), [0, 1], 'the oldest go first, as PM2')
})

test('watch moves rows: one leaving the watched set is sent again as a summary row', async (t) => {
  const { clock, feed, pushes } = await setup(t, { instances: 3 })
  feed.start(new Set([0]))
  feed.snapshot()
  feed.setWatched(new Set([1]))
  clock.advanceSync(CHANGE_PUSH_MS)
  const row = pushes[0].data.rows.find((r) => r.id === 0)
  assert.ok(row && row.pid === undefined, 'process 0 as a summary row')
})

test('a push the connection dropped goes again with the next one', async (t) => {
  let dropping = true
  const { clock, supervisor, feed, pushes } = await setup(t, { instances: 2, drop: () => dropping })
  feed.start(new Set())
  feed.snapshot()
  await supervisor.stop('api')
  await waitUntil(() => supervisor.allInstances().every((i) => i.status === 'stopped'))
  clock.advanceSync(CHANGE_PUSH_MS)
  assert.equal(pushes.length, 0, 'dropped')
  dropping = false
  clock.advanceSync(CHANGE_PUSH_MS)
  assert.deepEqual(pushes[0].data.rows.map((r) => [r.id, r.status]), [[0, 'stopped'], [1, 'stopped']])
})
