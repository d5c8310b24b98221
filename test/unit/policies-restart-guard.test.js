'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { EventBus } = require('../../daemon/event-bus')
const { createPolicies } = require('../../daemon/policies')
const { createRestartGuard } = require('../../daemon/policies/restart-guard')

const MB = 1024 * 1024

// A manual clock: time moves only when the test says so; timers fire then.
function manualClock () {
  let t = 0
  const timers = new Set()
  return {
    now: () => t,
    clock: {
      setTimeout: (fn, ms) => { const timer = { at: t + ms, fn }; timers.add(timer); return timer },
      clearTimeout: (timer) => timers.delete(timer)
    },
    pending: () => [...timers].map((x) => x.at - t),
    advance (ms) {
      t += ms
      for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
        if (timer.at > t) continue
        timers.delete(timer)
        timer.fn()
      }
    }
  }
}

const settle = () => new Promise(setImmediate)

// One app, one instance; a reload restarts it at once (new pid, new start time) and giveUp makes
// it errored, as the model does.
function setup (spec, time) {
  const supervisor = new EventBus()
  const app = { name: 'api', spec: { name: 'api', cwd: '/tmp', watch: false, cronRestart: null, maxMemoryRestart: 80 * MB, ...spec }, instances: [] }
  const inst = { id: 0, index: 0, app, name: 'api', spec: app.spec, status: 'online', pid: 100, startedAt: time.now(), onlineSince: 1, restarts: 0, label: 'api[0]' }
  app.instances = [inst]
  supervisor.apps = new Map([['api', app]])
  supervisor.allInstances = () => app.instances
  const restarts = []
  const gaveUp = []
  app.reload = async (instances, { reason }) => {
    for (const i of instances) {
      restarts.push({ at: time.now(), reason })
      i.pid++
      i.restarts++
      i.startedAt = time.now()
    }
    return { replaced: [], restarted: instances.map((i) => i.id) }
  }
  inst.giveUp = async (reason) => {
    gaveUp.push(reason)
    inst.status = 'errored'
    inst.pid = 0
    return true
  }
  const metrics = new EventEmitter()
  const policies = createPolicies({ supervisor, metrics, logger: null, now: time.now, clock: time.clock })
  return { supervisor, inst, metrics, policies, restarts, gaveUp }
}

const sample = (inst, memory) => new Map([[inst.id, { memory, pid: inst.pid, at: 2 }]])

test('memory: a process over its limit from its first sample backs off, and is errored after max_restarts in a row', async (t) => {
  const time = manualClock()
  const { inst, metrics, policies, restarts, gaveUp } = setup({ maxRestarts: 4 }, time)
  t.after(() => policies.close())
  const delays = []
  for (let round = 0; round < 10 && !gaveUp.length; round++) {
    time.advance(1500) // the first sample of each process comes 1.5 s after its start: over the limit
    metrics.emit('sample', sample(inst, 120 * MB))
    await settle()
    delays.push(time.pending()[0] ?? 0)
    time.advance(delays.at(-1))
    await settle()
  }
  assert.deepEqual(delays, [100, 200, 400, 800, 0])
  assert.equal(restarts.length, 4)
  assert.deepEqual(gaveUp, ['memory (120.0M > 80M); 5 memory restarts in a row, each less than min_uptime (1s) after its start (max_restarts 4)'])
  // given up: no policy touches it any more, until the user starts it again
  assert.deepEqual(policies.state().live, [])
})

test('memory: a process that ran within its limit before going over restarts at once, and only the window errors a storm', async (t) => {
  const time = manualClock()
  const { inst, metrics, policies, restarts, gaveUp } = setup({ maxRestarts: 3, restartWindow: 60000 }, time)
  t.after(() => policies.close())
  for (let round = 0; round < 4; round++) {
    time.advance(1500)
    metrics.emit('sample', sample(inst, 50 * MB))
    time.advance(1000)
    metrics.emit('sample', sample(inst, 120 * MB))
    await settle()
    assert.deepEqual(time.pending(), [], 'no backoff for a stable run')
  }
  assert.equal(restarts.length, 3)
  assert.match(gaveUp[0], /; 4 memory restarts within 60s \(max_restarts 3\)$/)
})

test('memory: the backoff wait is cancelled by a user stop; close() ends pending waits', async (t) => {
  const time = manualClock()
  const { supervisor, inst, metrics, policies, restarts } = setup({}, time)
  t.after(() => policies.close())
  time.advance(1500)
  metrics.emit('sample', sample(inst, 120 * MB))
  await settle()
  assert.deepEqual(time.pending(), [100])
  supervisor.emit('command', { type: 'stop', instances: [inst] })
  inst.status = 'stopped'
  time.advance(100)
  await settle()
  assert.equal(restarts.length, 0, 'a stopped instance is not restarted after its backoff')
  policies.close()
  assert.deepEqual(time.pending(), [])
})

test('guard: xpm reset (the restart counter going back) forgets the history; a user stop does too', () => {
  let now = 0
  const guard = createRestartGuard({ now: () => now })
  const inst = { id: 3, spec: { maxRestarts: 2 }, restarts: 0 }
  const decide = () => {
    const d = guard.decide(inst, { uptime: 0, what: 'watch restarts', cause: 'watch: a.txt' })
    if (d.action === 'restart') inst.restarts++
    now += 10
    return d
  }
  assert.deepEqual([decide().delay, decide().delay], [100, 200])
  inst.restarts = 0 // xpm reset
  assert.equal(decide().delay, 100)
  guard.forget(3)
  assert.equal(decide().delay, 100)
  assert.equal(decide().delay, 200)
  assert.deepEqual(decide(), { action: 'errored', reason: 'watch: a.txt; 3 watch restarts in a row, each less than min_uptime (1s) after its start (max_restarts 2)' })
  assert.equal(guard.size(), 0, 'after giving up, a start by the user begins afresh')
})
