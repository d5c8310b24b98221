'use strict'

// The watchdog (max_event_loop_delay, max_heap): the pure judgement over agent reports, and the
// tracker that feeds it (policies/watchdog-tracker.js) (injected clock, fake supervisor and handles).
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { waitFor } = require('../helpers/wait')
const { EventEmitter } = require('node:events')
const { EventBus } = require('../../daemon/event-bus')
const { judgeLoop, judgeHeap, windowFor } = require('../../daemon/policies/watchdog')
const { createWatchdog, TICK_MS } = require('../../daemon/policies/watchdog-tracker')
const { fakeClock } = require('../helpers/fake-clock')
const fakeTime = () => { const c = fakeClock(); return Object.assign(c, { advance: c.advanceSync }) }

const reports = (list) => list.map(([at, p99]) => ({ at, p99 }))

test('a loop is blocked when its p99 stayed above the limit for a whole window', () => {
  const limit = 1000
  assert.equal(windowFor(limit, 1000), 3000)
  assert.equal(windowFor(10000, 1000), 10000)
  // healthy: low p99
  assert.equal(judgeLoop({ limit, since: 0, now: 5100, reports: reports([[1000, 5], [2000, 4], [3000, 8], [4000, 3], [5000, 2]]) }), null)
  // one slow report is not a window
  assert.equal(judgeLoop({ limit, since: 0, now: 5100, reports: reports([[3000, 5], [4000, 1500], [5000, 3]]) }), null)
  assert.equal(judgeLoop({ limit, since: 0, now: 5100, reports: reports([[3000, 5], [4000, 3], [5000, 1500]]) }), null)
  // three seconds above the limit
  const v = judgeLoop({ limit, since: 0, now: 5100, reports: reports([[2000, 5], [3000, 1800], [4000, 2500], [5000, 1900]]) })
  assert.deepEqual(v, { p99: 1800, silentMs: 0, reason: 'event loop blocked: p99 1.8 s (max_event_loop_delay 1s)' })
  // one report covering a 5 s stall (the loop came back: the interval fired late once)
  const stall = judgeLoop({ limit, since: 0, now: 8100, reports: reports([[2000, 5], [3000, 4], [8000, 4900]]) })
  assert.equal(stall.reason, 'event loop blocked: p99 4.9 s (max_event_loop_delay 1s)')
})

test('a loop that stops reporting counts as blocked once its report is overdue by more than the limit', () => {
  const limit = 1000
  const r = reports([[1000, 3], [2000, 4]])
  assert.equal(judgeLoop({ limit, since: 0, now: 3500, reports: r }), null, '1.5 s of silence: a late report')
  assert.equal(judgeLoop({ limit, since: 0, now: 4500, reports: r }), null, 'overdue, but not for a whole window yet')
  const v = judgeLoop({ limit, since: 0, now: 5200, reports: r })
  assert.equal(v.silentMs, 3200)
  assert.equal(v.reason, 'event loop blocked: p99 ≥ 3.2 s, no report (max_event_loop_delay 1s)')
  // a process that never reported: from `since` (online plus the agent's start delay)
  assert.equal(judgeLoop({ limit, since: 1000, now: 3500, reports: [] }), null)
  assert.ok(judgeLoop({ limit, since: 1000, now: 4100, reports: [] }))
  // the silence and the slow reports before it add up
  assert.ok(judgeLoop({ limit, since: 0, now: 4300, reports: reports([[1000, 3], [2000, 1200]]) }))
  assert.equal(judgeLoop({ limit: null, since: 0, now: 1e9, reports: [] }), null)
})

test('max_heap: over the limit in two reports in a row', () => {
  const limit = 100 * 1024 * 1024
  assert.equal(judgeHeap({ limit, heaps: [limit + 1] }), null)
  assert.equal(judgeHeap({ limit, heaps: [limit + 1, limit - 1] }), null)
  assert.equal(judgeHeap({ limit, heaps: [limit - 1, limit + 1] }), null)
  assert.deepEqual(judgeHeap({ limit, heaps: [1, limit + 1, 150 * 1024 * 1024] }), { heapUsed: 150 * 1024 * 1024, reason: 'heap (150.0M > 100M)' })
})

function world (spec) {
  const supervisor = new EventBus()
  const handle = new EventEmitter()
  Object.assign(handle, { pid: 100, exited: false, reportsBoot: true })
  const inst = { id: 0, index: 0, name: spec.name, label: `${spec.name}[0]`, status: 'online', handle, spec, startedAt: 0 }
  supervisor.apps = new Map([[spec.name, { spec, instances: [inst] }]])
  return { supervisor, handle, inst }
}

test('the tracker: reports are judged as they come, silence on its tick; one verdict per process', () => {
  const time = fakeTime()
  const spec = { name: 'w', maxEventLoopDelay: 1000, maxHeap: null, metrics: true }
  const { supervisor, handle, inst } = world(spec)
  const restarts = []
  const dog = createWatchdog({ supervisor, now: time.now, clock: time.clock, restartFor: (i, reason, opts) => { restarts.push([i.id, reason, opts]); return new Promise(() => {}) } })
  supervisor.emit('forked', { instance: inst, handle })
  const report = (p99) => handle.emit('message', { 'xpm:agent': 'metrics', data: { elP99: p99, heapUsed: 1 } })
  for (let s = 0; s < 3; s++) {
    time.advance(1000)
    report(3)
  }
  assert.deepEqual(restarts, [])
  handle.emit('message', { cmd: 'not metrics' })
  handle.emit('message', 'ready')
  time.advance(3500) // silent: blocked
  assert.equal(restarts.length, 1)
  assert.match(restarts[0][1], /^event loop blocked: p99 ≥ 3\.\d s, no report/)
  assert.deepEqual(restarts[0][2].key, 'watchdog:0')
  assert.equal(restarts[0][2].what, 'watchdog restarts')
  assert.ok(restarts[0][2].uptime > 0, 'it was healthy before: a stable run')
  time.advance(5000)
  assert.equal(restarts.length, 1, 'judged once while its restart runs')
  assert.ok(TICK_MS <= 1000)
  dog.close()
})

test('the tracker: max_heap from the reports; an app without the agent\'s metrics is not watched', () => {
  const time = fakeTime()
  const spec = { name: 'h', maxEventLoopDelay: null, maxHeap: 50 * 1024 * 1024, metrics: true }
  const { supervisor, handle, inst } = world(spec)
  const restarts = []
  const warnings = []
  const dog = createWatchdog({ supervisor, now: time.now, clock: time.clock, logger: { warn: (o, m) => warnings.push(m) }, restartFor: (i, reason, opts) => { restarts.push([reason, opts.what, opts.uptime]); return Promise.resolve(null) } })
  supervisor.emit('forked', { instance: inst, handle })
  handle.emit('message', { 'xpm:agent': 'metrics', data: { heapUsed: 60 * 1024 * 1024 } })
  handle.emit('message', { 'xpm:agent': 'metrics', data: {} }) // a heartbeat: the heap unchanged
  assert.deepEqual(restarts, [['heap (60.0M > 50M)', 'heap restarts', 0]], 'never under its limit: an unstable run')
  dog.close()

  const off = world({ name: 'o', maxEventLoopDelay: 1000, maxHeap: null, metrics: false })
  const dog2 = createWatchdog({ supervisor: off.supervisor, now: time.now, clock: time.clock, logger: { warn: (o, m) => warnings.push(m) }, restartFor: () => { throw new Error('not watched') } })
  time.advance(20000)
  assert.equal(warnings.length, 1)
  assert.match(warnings[0], /need the agent's metrics/)
  dog2.close()
})

test('a watched process\'s agent reports at the full rate, every interval, changed figures or not', async (t) => {
  const { createMetrics } = require('../../daemon/metrics')
  const sent = []
  const metrics = createMetrics({ sampler: { clkTck: 100, sample: async () => null } })
  metrics.track(0, 100, { send: (msg) => sent.push(['plain', msg]) })
  metrics.track(1, 101, { send: (msg) => sent.push(['watched', msg]), steady: true })
  assert.deepEqual(sent, [
    ['plain', { cmd: 'NODE_XPM_METRICS', intervalMs: 30000 }],
    ['watched', { cmd: 'NODE_XPM_METRICS', intervalMs: 1000, heartbeat: true }]
  ])
  metrics.stop()

  // the agent's side: a heartbeat report goes out even when no figure changed
  const { followSchedule } = require('../../lib/agent/metrics-schedule')
  const reports = []
  let deliver
  const schedule = followSchedule({
    ipc: { connected: () => true, send: (msg) => { reports.push(msg); return true } },
    env: { XPM_METRICS_INTERVAL: '100' },
    on: (fn) => { deliver = fn },
    off: () => {}
  })
  t.after(() => schedule.stop())
  deliver({ cmd: 'NODE_XPM_METRICS', intervalMs: 1000, heartbeat: true })
  schedule.booted()
  const keep = setInterval(() => {}, 50)
  t.after(() => clearInterval(keep))
  await waitFor(() => reports.length >= 6, { timeout: 5000, interval: 50, message: 'six reports' })
  assert.equal(schedule.reporter.heartbeat, true)
  assert.ok(reports.every((r) => r['xpm:agent'] === 'metrics'))
})
