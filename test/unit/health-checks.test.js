'use strict'

// The health checks (daemon/health/index.js): readiness and liveness loops of online processes,
// driven by an injected clock, a fake prober and fake policies.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventBus } = require('../../daemon/event-bus')
const { createHealth } = require('../../daemon/health')
const { parseProbe } = require('../../lib/shared/config/health-types')
const { fakeClock: fakeTime } = require('../helpers/fake-clock')

function world (spec) {
  const supervisor = new EventBus()
  const handle = { pid: 100, exited: false }
  const inst = {
    id: 3,
    index: 0,
    name: spec.name,
    label: `${spec.name}[0]`,
    status: 'online',
    handle,
    spec,
    startedAt: 0,
    marks: [],
    probeTarget: (h) => ({ handle: h }),
    markReadiness (h, ready, reason) { this.marks.push([h.pid, ready, reason]) }
  }
  supervisor.apps = new Map([[spec.name, { spec, instances: [inst] }]])
  return { supervisor, inst, handle }
}

test('readiness of an online process: not ready after failure_threshold failures, ready again after success_threshold', async () => {
  const time = fakeTime()
  const spec = { name: 'r', readiness: { ...parseProbe('http:/healthz'), interval: 1000, failureThreshold: 2, successThreshold: 2 }, liveness: null }
  const { supervisor, inst } = world(spec)
  const results = [true, false, false, false, true, true, true]
  const runs = []
  const prober = { probe: async (p, target, { role }) => { runs.push([role, target.handle.pid]); const ok = results.shift() ?? true; return { ok, detail: ok ? '→ 200' : 'GET /healthz → 503' } } }
  const health = createHealth({ supervisor, prober, policies: {}, now: time.now, clock: time.clock })
  supervisor.emit('status', { id: 3, name: 'r', to: 'online' })
  await time.advance(999)
  assert.deepEqual(runs, [], 'it just passed the start-up gate: the first check one interval later')
  await time.advance(6001)
  assert.equal(runs.length, 7)
  assert.deepEqual(inst.marks, [[100, false, 'GET /healthz → 503'], [100, true, null]])
  assert.deepEqual(health.state(), [{ id: 3, pid: 100, probes: ['GET /healthz'] }])

  // not online any more: the loop ends
  inst.status = 'stopping'
  supervisor.emit('status', { id: 3, name: 'r', to: 'stopping' })
  await time.advance(5000)
  assert.equal(runs.length, 7)
  assert.deepEqual(health.state(), [])
  health.close()
})

test('liveness: failure_threshold failures in a row restart the process through the policies, once', async () => {
  const time = fakeTime()
  const spec = { name: 'l', readiness: null, liveness: { ...parseProbe('tcp:3000'), interval: 500, failureThreshold: 3, initialDelay: 2000 } }
  const { supervisor, inst, handle } = world(spec)
  let healthy = true
  const runs = []
  const prober = { probe: async () => { runs.push(time.now()); return healthy ? { ok: true, detail: 'listening' } : { ok: false, detail: 'tcp :3000: connection refused' } } }
  const restarts = []
  let finish
  const policies = { restartFor: (i, reason, opts) => { restarts.push([i.id, reason, opts]); return new Promise((resolve) => { finish = resolve }) } }
  const health = createHealth({ supervisor, prober, policies, now: time.now, clock: time.clock })
  supervisor.emit('status', { id: 3, name: 'l', to: 'online' })
  await time.advance(1999)
  assert.equal(runs.length, 0, 'initial_delay')
  await time.advance(1001)
  assert.deepEqual(runs, [2000, 2500, 3000])
  healthy = false
  await time.advance(1500)
  assert.deepEqual(restarts, [[3, 'liveness: tcp :3000: connection refused', { key: 'liveness:3', what: 'liveness restarts', uptime: 4500, pid: 100 }]])
  await time.advance(3000)
  assert.equal(restarts.length, 1, 'no probe while its restart runs')
  // the restart did not replace it (rolled back): probed afresh
  finish({ done: [], failed: { message: 'rolled back' } })
  await time.advance(2000)
  assert.equal(restarts.length, 2)
  // a new process: new loops, and one that never passed counts as unstable (uptime 0)
  finish({ done: [3], failed: null })
  inst.handle = { pid: 101, exited: false }
  handle.exited = true
  inst.startedAt = time.now()
  supervisor.emit('status', { id: 3, name: 'l', from: 'online', to: 'online' })
  await time.advance(3600)
  assert.equal(restarts.length, 3)
  assert.equal(restarts[2][2].uptime, 0)
  health.close()
  assert.equal(time.pending, 0, 'close ends every loop')
})
