'use strict'

// The app model's overlap rules (daemon/model/overlap-rules.js), on the real Supervisor, App and
// Instance with a launcher that forks nothing (test/helpers/fake-launcher.js).
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')

function setup (options) {
  const fake = fakeLauncher(options)
  const sup = new Supervisor({ launcher: fake.launcherFor })
  return { sup, fake }
}

const statuses = (sup) => sup.list().map((p) => `${p.name}[${p.instance}]:${p.status}`)
const ready = (handle) => handle.emit('message', 'ready')
const turn = () => new Promise(setImmediate)

test('stop cancels an in-flight start; nothing of the app is left running', async () => {
  const { sup, fake } = setup()
  const starting = sup.start([fakeSpec('api', { instances: 2, waitReady: true })])
  await turn()
  assert.deepEqual(statuses(sup), ['api[0]:launching', 'api[1]:launching'])
  const stopped = await sup.stop('api')
  const [result] = await starting
  assert.equal(result.action, 'cancelled')
  assert.equal(result.failures[0].code, 'XPM_ERR_CANCELLED')
  assert.match(result.failures[0].message, /start of api cancelled by stop/)
  assert.deepEqual(stopped.ids, [0, 1])
  assert.deepEqual(fake.live(), [])
  assert.deepEqual(statuses(sup), ['api[0]:stopped', 'api[1]:stopped'])
})

test('stop cancels an in-flight reload and the reload queued behind it; spares are stopped', async () => {
  const { sup, fake } = setup()
  const started = sup.start([fakeSpec('api', { instances: 2, waitReady: true })])
  await turn()
  fake.launched.forEach(ready)
  await started
  const reloading = sup.reload('api')
  const queued = sup.restart('api')
  await turn()
  assert.equal(fake.live().length, 3, 'one spare beside the two workers')
  assert.deepEqual(sup.list()[0].extraPids, [fake.launched[2].pid])
  const stopping = sup.stop('api')
  await assert.rejects(reloading, { code: 'XPM_ERR_CANCELLED', message: 'reload of api cancelled by stop' })
  await assert.rejects(queued, { code: 'XPM_ERR_CANCELLED', message: 'restart of api cancelled by stop' })
  await stopping
  assert.deepEqual(fake.live(), [])
  assert.deepEqual(statuses(sup), ['api[0]:stopped', 'api[1]:stopped'])
})

test('a start after a stop waits for it, then runs', async () => {
  const { sup, fake } = setup()
  await sup.start([fakeSpec('api')])
  const seen = []
  sup.on('status', (c) => seen.push(c.to))
  const stopping = sup.stop('api')
  const starting = sup.startTarget('api')
  await stopping
  await starting
  assert.deepEqual(seen, ['stopping', 'stopped', 'launching', 'online'])
  assert.deepEqual(statuses(sup), ['api[0]:online'])
  assert.equal(fake.live().length, 1)
})

test('a reload never touches an instance the user stopped', async () => {
  const { sup, fake } = setup()
  await sup.start([fakeSpec('api', { instances: 3 })])
  await sup.stop('2')
  await sup.reload('0')
  await sup.reload('api')
  assert.deepEqual(statuses(sup), ['api[0]:online', 'api[1]:online', 'api[2]:stopped'])
  assert.equal(fake.live().length, 2)
})

test('different apps never wait for each other', async () => {
  const { sup, fake } = setup()
  const slow = sup.start([fakeSpec('slow', { waitReady: true })])
  const [fast] = await sup.start([fakeSpec('fast')])
  assert.equal(fast.action, 'started')
  assert.deepEqual(statuses(sup), ['slow[0]:launching', 'fast[0]:online'])
  ready(fake.launched[0])
  await slow
})

test('delete cancels, stops, forgets; a start of the same name meanwhile creates it anew', async () => {
  const { sup, fake } = setup()
  const first = sup.start([fakeSpec('api', { waitReady: true })])
  await turn()
  const deleting = sup.delete('api')
  const again = sup.start([fakeSpec('api')])
  assert.equal((await first)[0].action, 'cancelled')
  assert.deepEqual((await deleting).apps, ['api'])
  assert.equal((await again)[0].action, 'started')
  assert.deepEqual(statuses(sup), ['api[0]:online'])
  assert.equal(fake.live().length, 1)
  assert.equal(sup.list()[0].id, 0, 'no instance was left: ids start again from 0, as in PM2')
})

test('scale keeps the other (newest, as PM2) instances and starts new ones only when the app runs', async () => {
  const { sup } = setup()
  await sup.start([fakeSpec('api', { instances: 2 })])
  const up = await sup.scale('api', '+2')
  assert.deepEqual([up.from, up.to, up.started], [2, 4, true])
  assert.deepEqual(statuses(sup), ['api[0]:online', 'api[1]:online', 'api[2]:online', 'api[3]:online'])
  const keep = sup.list()[3].pid
  const down = await sup.scale('api', '-3')
  assert.deepEqual(down.removed.map((r) => r.instance), [0, 1, 2])
  assert.equal(sup.list()[0].pid, keep)
  await sup.stop('api')
  const idle = await sup.scale('api', '2')
  assert.equal(idle.started, false)
  assert.deepEqual(statuses(sup), ['api[3]:stopped', 'api[0]:stopped'], 'listed by id: the new instance takes a new id')
  await assert.rejects(sup.scale('nope', '1'), { code: 'XPM_ERR_APP_NOT_FOUND' })
})

test('policy restarts queued for the same cause coalesce into one reload', async () => {
  const { sup, fake } = setup({ replacesInPlace: false })
  await sup.start([fakeSpec('api')])
  const app = sup.apps.get('api')
  const runs = [app.reload(app.instances, { reason: 'manual' })]
  await turn() // the user's reload is running now
  runs.push(app.reload(app.instances, { reason: 'cron', coalesce: 'policy:cron' }))
  runs.push(app.reload(app.instances, { reason: 'cron', coalesce: 'policy:cron' }))
  assert.equal(runs[1], runs[2], 'the second cron restart joins the queued first')
  await Promise.all(runs)
  assert.equal(fake.launched.length, 3, 'the first start, the user reload, one cron restart')
})

test('after close (xpm kill) no command is taken and nothing runs', async () => {
  const { sup, fake } = setup()
  const starting = sup.start([fakeSpec('a', { waitReady: true }), fakeSpec('b', { waitReady: true })])
  await turn()
  await sup.close()
  assert.deepEqual((await starting).map((r) => r.action), ['cancelled', 'cancelled'])
  assert.deepEqual(fake.live(), [])
  await assert.rejects(sup.start([fakeSpec('c')]), { code: 'XPM_ERR_SHUTTING_DOWN' })
  await assert.rejects(sup.scale('a', '2'), { code: 'XPM_ERR_SHUTTING_DOWN' })
})

test('a process its readiness probe never passes is not left online: stopped, and its exit counts as a crash', async () => {
  const fake = fakeLauncher()
  const prober = { probe: async () => ({ ok: false, detail: 'connection refused' }) }
  const sup = new Supervisor({ launcher: fake.launcherFor, prober })
  const { parseProbe } = require('../../lib/shared/config/health-types')
  const readiness = { ...parseProbe('tcp:9'), interval: 10, failureThreshold: 1, successThreshold: 1, initialDelay: 0 }
  const [result] = await sup.start([fakeSpec('api', { readiness, listenTimeout: 50, autorestart: false })])
  assert.match(result.failures[0].message, /not ready after 50 ms/)
  await new Promise((resolve) => { if (fake.live().length === 0) resolve(); else fake.launched[0].once('exit', () => setImmediate(resolve)) })
  assert.deepEqual(statuses(sup), ['api[0]:stopped'])
  assert.equal(sup.list()[0].lastExit.reason, 'not ready in time')
})

test('delete, start, stop of one app sent together: the stop applies to the app started anew (the last word wins), not "not found"', async () => {
  const { sup } = setup()
  await sup.start([fakeSpec('web')])
  const deleting = sup.delete('web')
  const starting = sup.start([fakeSpec('web')])
  const stopping = sup.stop('web')
  await deleting
  const [started] = await starting
  assert.ok(['cancelled', 'started'].includes(started.action), started.action)
  assert.deepEqual((await stopping).ids.length, 1)
  assert.deepEqual(statuses(sup), ['web[0]:stopped'])
  assert.equal(sup.list()[0].wanted, false)
})

test('wait_ready and no \'ready\' message: online at listen_timeout with a warning, as PM2', async () => {
  const { sup } = setup()
  const warnings = []
  sup.on('status', (s) => { if (s.warning) warnings.push(s) })
  const [result] = await sup.start([fakeSpec('api', { waitReady: true, listenTimeout: 50 })])
  assert.deepEqual(result.failures, [])
  assert.deepEqual(statuses(sup), ['api[0]:online'])
  assert.equal(warnings.length, 1)
  assert.match(warnings[0].warning, /api\[0\].*sent no 'ready' message within listen_timeout \(50 ms\)/)
})

test('a process whose entry has not run at listen_timeout is online with a warning, not stopped nor restarted (as PM2)', async () => {
  const { sup, fake } = setup({ boots: false })
  const warnings = []
  sup.on('status', (s) => { if (s.warning) warnings.push(s) })
  const [result] = await sup.start([fakeSpec('slow', { listenTimeout: 50 })])
  assert.deepEqual(result.failures, [])
  assert.deepEqual(statuses(sup), ['slow[0]:online'])
  assert.equal(fake.launched.length, 1)
  assert.equal(fake.live().length, 1)
  assert.equal(sup.list()[0].restarts, 0)
  assert.equal(warnings.length, 1)
  assert.equal(warnings[0].warningKind, 'slow_start')
  assert.match(warnings[0].warning, /slow\[0\].*had not run its entry \(its first turn\) within listen_timeout \(50 ms\) but is running/)
  await sup.stop('slow')
})

test('delete, stop, start of one app sent together: the start, sent last, wins (seed 735790577: the stop used to overtake it)', async () => {
  const { sup } = setup()
  await sup.start([fakeSpec('job')])
  const deleting = sup.delete('job')
  const stopping = sup.stop('job').catch((err) => err)
  const starting = sup.start([fakeSpec('job')])
  await deleting
  await stopping // not found, or a stop of the deleted app: either way before the start
  const [started] = await starting
  assert.equal(started.action, 'started')
  assert.deepEqual(statuses(sup), ['job[0]:online'])
})

test('a rename is the intent from the moment it is accepted: saved under the new name while the old processes stop; a start of the new name waits for it', async () => {
  const { appsSnapshot } = require('../../daemon/persistence/snapshot')
  const { sup, fake } = setup()
  await sup.start([fakeSpec('api', { instances: 2 })])
  await sup.stop('1')
  const renaming = sup.rename('api', fakeSpec('web'))
  const starting = sup.start([fakeSpec('web', { instances: 2, env: { V: '2' } })])
  await turn()
  assert.equal(sup.apps.get('api').deleting, true, 'the old app stops')
  // a daemon crash now restores web (not nothing): every instance wanted up, the same ids
  assert.deepEqual(appsSnapshot(sup).map((a) => [a.spec.name, a.spec.instances, a.instances.map((i) => [i.id, i.desired])]), [['web', 2, [[0, 'online'], [1, 'online']]]])
  const [renamed, [started]] = await Promise.all([renaming, starting])
  assert.equal(renamed.renamedFrom, 'api')
  assert.equal(started.action, 'restarted', 'the start came after the rename: it restarts the renamed app with its spec')
  assert.deepEqual(statuses(sup), ['web[0]:online', 'web[1]:online'])
  assert.equal(sup.apps.get('web').spec.env.V, '2')
  assert.equal(fake.live().length, 2)
})

test('a policy giving up on an instance that waits for its crash restart turns it errored, with no restart left pending', async () => {
  const { sup, fake } = setup()
  await sup.start([fakeSpec('api', { restartDelay: 60000 })])
  fake.live()[0].markExited(1, null)
  const [inst] = sup.allInstances()
  assert.equal(inst.status, 'waiting restart')
  assert.equal(await inst.giveUp('3 watch restarts within 60 s'), true)
  assert.equal(inst.status, 'errored')
  assert.equal(inst.restartPending, false)
  assert.equal(inst.lastExit.reason, '3 watch restarts within 60 s')
})
