'use strict'

// A policy restart is about one process: queued behind a user's reload, it must not replace the
// reload's new, healthy process, nor blame it (`xpm why`) for the old one's failure.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { createPolicies } = require('../../daemon/policies')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')

for (const [cause, key, what] of [['liveness: GET /healthz → 503', 'liveness', 'liveness restarts'], ['event loop blocked (p99 900 ms > 500 ms)', 'watchdog', 'watchdog restarts']]) {
  test(`a ${key} restart queued behind \`xpm reload\` is dropped: the process it was raised for is already gone`, async (t) => {
    const fake = fakeLauncher({ replacesInPlace: true })
    const supervisor = new Supervisor({ launcher: fake.launcherFor })
    const policies = createPolicies({ supervisor, metrics: null, logger: null })
    t.after(async () => {
      policies.close()
      await supervisor.close?.()
    })
    await supervisor.start([fakeSpec('api', { execMode: 'cluster' })])
    const app = supervisor.apps.get('api')
    const [inst] = app.instances
    const failing = inst.pid
    const restarts = []
    supervisor.on('restart', (r) => restarts.push(r.reason))

    const reload = app.reload(app.instances, { reason: 'reload' })
    const policy = policies.restartFor(inst, cause, { key: `${key}:${inst.id}`, what, uptime: 60000, pid: failing })
    await reload
    const fresh = inst.pid
    assert.notEqual(fresh, failing, 'the user\'s reload replaced the process')
    const done = await policy
    assert.deepEqual(done?.done ?? [], [], 'nothing was restarted for it')
    assert.equal(inst.pid, fresh, 'the reload\'s new process still serves')
    assert.equal(fake.launched.length, 2, 'the original and the reload\'s replacement, nothing more')
    assert.ok(!restarts.includes(cause), `no restart recorded against the new process: ${restarts}`)
  })
}

test('a policy restart of the process it names still happens', async (t) => {
  const fake = fakeLauncher({ replacesInPlace: true })
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  const policies = createPolicies({ supervisor, metrics: null, logger: null })
  t.after(async () => {
    policies.close()
    await supervisor.close?.()
  })
  await supervisor.start([fakeSpec('api', { execMode: 'cluster' })])
  const [inst] = supervisor.apps.get('api').instances
  const before = inst.pid
  const done = await policies.restartFor(inst, 'liveness: GET /healthz → 503', { key: `liveness:${inst.id}`, what: 'liveness restarts', uptime: 60000, pid: before })
  assert.deepEqual(done.done, [inst.id])
  assert.notEqual(inst.pid, before)
})
