'use strict'

// The intent a command asks for is what the saved state holds from the moment the command is
// accepted (docs/architecture.md, "Intent"): a change of the instance count, a new spec whose
// operation was cancelled, a command sent while its app is being deleted. These were the gaps
// the review of issue 22 left as todo. The real Supervisor and App with a launcher that forks
// nothing; the saved state is what state.json would hold.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { appsSnapshot } = require('../../daemon/persistence/snapshot')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { waitFor } = require('../helpers/wait')

const spec = (name, instances, extra = {}) => fakeSpec(name, { instances, killTimeout: 50, ...extra })
const saved = (sup) => appsSnapshot(sup).map((a) => [a.spec.name, a.spec.instances, a.spec.env.V ?? null])
const turn = () => new Promise(setImmediate)

test('a start that redefines a running app with more instances: saved with its new count while the old processes stop', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  const starting = sup.start([spec('api', 3, { env: { V: '2' } })])
  await turn()
  try {
    assert.deepEqual(saved(sup), [['api', 3, '2']], 'a daemon crash now restores the app as the start defined it')
  } finally {
    await starting
  }
})

test('a scale queued behind a start: saved with its new count from the moment it is accepted', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  const restarting = sup.restart('api')
  const scaling = sup.scale('api', '4')
  await turn()
  try {
    assert.deepEqual(saved(sup), [['api', 4, null]])
  } finally {
    await Promise.all([restarting, scaling])
  }
})

test('a restart with a new spec cancelled by a stop: the live app and the saved state agree on the spec', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  const restarting = sup.restart('api', { specs: [spec('api', 1, { env: { V: '2' } })] }).catch((err) => err)
  await sup.stop('api')
  await restarting
  await sup.startTarget('api')
  assert.deepEqual(saved(sup), [['api', 1, '2']])
  assert.equal(sup.apps.get('api').spec.env.V, '2', 'the running app has the spec a restore would give it')
})

test('a scale-down queued behind a restart: the removed instance leaves the saved state at once and stops beside the restart', async () => {
  const fake = fakeLauncher({ exitAfterMs: 20 })
  const sup = new Supervisor({ launcher: fake.launcherFor })
  await sup.start([spec('api', 3)])
  const restarting = sup.restart('api')
  const scaling = sup.scale('api', '-2')
  assert.deepEqual(saved(sup), [['api', 1, null]])
  const [restarted, scaled] = await Promise.all([restarting, scaling])
  assert.deepEqual(restarted.ids, [2], 'the restart leaves the removed instances to the scale')
  assert.deepEqual(scaled.removed.map((r) => r.id), [0, 1])
  assert.deepEqual(sup.list().map((p) => [p.id, p.status]), [[2, 'online']])
  assert.deepEqual(fake.live().map((h) => h.spec.name), ['api'])
})

// A command that names an app whose delete is under way is handed to the model (accepted) once
// that delete is done (daemon/delete-waits.js): until then nothing of it is recorded and its
// client has no reply, so a daemon crash meanwhile restores the app as deleted, and the client
// sees its connection close unanswered (XPM_ERR_DAEMON_UNREACHABLE, exit 1), not a success.
test('a start sent while its app is being deleted: nothing of it saved until the delete is done, then its spec at once', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher({ exitAfterMs: 30 }).launcherFor })
  await sup.start([spec('api', 1)])
  const deleting = sup.delete('api')
  let answered = false
  const starting = sup.start([spec('api', 2, { env: { V: '2' } })]).then((r) => { answered = true; return r })
  await turn()
  assert.deepEqual(saved(sup), [], 'neither the app being deleted nor the start waiting for its delete')
  assert.equal(answered, false)
  await deleting
  await waitFor(() => saved(sup).length, { message: 'the start accepted once the delete is done' })
  assert.deepEqual(saved(sup), [['api', 2, '2']])
  const [started] = await starting
  assert.equal(started.failures.length, 0)
})

test('a scale of a stopped app is written to state.json at once, as every change of intent (no debounce)', async (t) => {
  const { StateKeeper } = require('../../daemon/persistence/state-keeper')
  const { StartTimes } = require('../../daemon/persistence/snapshot')
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  await sup.stop('api')
  const writes = []
  const keeper = new StateKeeper({ file: 'state.json', supervisor: sup, debounceMs: 60000, startTimes: new StartTimes({ readStat: async () => null }), write: async (file, text) => { writes.push(JSON.parse(text)) } })
  await keeper.start()
  t.after(() => keeper.freeze())
  writes.length = 0
  const scaling = sup.scale('api', '3')
  await waitFor(() => writes.length, { message: 'a write without the debounce' })
  assert.deepEqual(writes[0].apps.map((a) => [a.spec.name, a.instances.map((i) => i.desired)]), [['api', ['stopped', 'stopped', 'stopped']]])
  await scaling
})

test('a scale sent while its app is being deleted comes after the delete: app not found, or the app a start sent before it created anew', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher({ exitAfterMs: 20 }).launcherFor })
  await sup.start([spec('api', 2)])
  const deleting = sup.delete('api')
  await assert.rejects(sup.scale('api', '3'), { code: 'XPM_ERR_APP_NOT_FOUND' })
  await deleting
  await sup.start([spec('api', 1)])
  const again = sup.delete('api')
  const starting = sup.start([spec('api', 1, { env: { V: '2' } })])
  const scaling = sup.scale('api', '+2')
  await Promise.all([again, starting])
  assert.deepEqual((await scaling).to, 3)
  assert.deepEqual(saved(sup), [['api', 3, '2']])
  await sup.close()
})
