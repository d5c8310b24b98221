'use strict'

// startOrRestart (daemon/commands/start-or-restart.js): an ecosystem file's apps in one request,
// split by the daemon's own registry, on the real Supervisor with a launcher that forks nothing.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { startOrRestart } = require('../../daemon/commands/start-or-restart')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')

function setup () {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  const pushed = []
  const conn = { push: (event, data) => pushed.push({ event, data }) }
  const ctx = { supervisor, admit: async () => {}, specsFor: async (params) => params.specs }
  return { supervisor, conn, ctx, pushed }
}

const rows = (sup) => sup.list().map((p) => `${p.name}:${p.status}:${p.restarts}`)

test('restart: an app the daemon manages restarts with the file\'s spec, one it does not starts', async () => {
  const { supervisor, conn, ctx } = setup()
  await supervisor.start([fakeSpec('api')])
  const reply = await startOrRestart(ctx, { mode: 'restart', specs: [fakeSpec('api', { env: { V: '2' } }), fakeSpec('worker')] }, conn)
  assert.deepEqual(reply.startedNames, ['worker'])
  assert.deepEqual(reply.started.map((r) => [r.name, r.action]), [['worker', 'started']])
  assert.deepEqual(reply.target, ['api'])
  assert.deepEqual(reply.restarted.ids, [0])
  assert.equal(reply.reloadError, null)
  assert.deepEqual(rows(supervisor), ['api:online:1', 'worker:online:0'])
  assert.equal(supervisor.apps.get('api').spec.env.V, '2')
})

test('reload: an app with no process running starts instead; others named along are reloaded too', async () => {
  const { supervisor, conn, ctx, pushed } = setup()
  await supervisor.start([fakeSpec('api'), fakeSpec('stopped'), fakeSpec('other')])
  await supervisor.stop('stopped')
  const reply = await startOrRestart(ctx, { mode: 'reload', specs: [fakeSpec('api'), fakeSpec('stopped')], target: 'other' }, conn)
  assert.deepEqual(reply.startedNames, ['stopped'])
  assert.deepEqual(reply.target, ['api', 'other'])
  assert.deepEqual(reply.reloaded.map((r) => r.name), ['api', 'other'])
  assert.deepEqual(rows(supervisor).map((r) => r.split(':').slice(0, 2).join(':')), ['api:online', 'stopped:online', 'other:online'])
  assert.ok(pushed.some((p) => p.event === 'reload.step'), 'the reload\'s steps are pushed')
  assert.ok(pushed.some((p) => p.event === 'progress' && p.data.type === 'begin'), 'a begin tells the CLI how long to wait')
})

test('bad params are refused before anything is done', async () => {
  const { supervisor, conn, ctx } = setup()
  assert.throws(() => startOrRestart(ctx, { mode: 'bounce', specs: [fakeSpec('api')] }, conn), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.throws(() => startOrRestart(ctx, { mode: 'restart', specs: [fakeSpec('api')], target: 5.5 }, conn), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.deepEqual(supervisor.list(), [])
})
