'use strict'

// depends_on: the config check (unknown names, itself, circles) and the daemon's ordering, on
// the real app model with a fake launcher (no OS process): starts wait for their dependencies'
// readiness or a job's exit 0, inside the dependent's own operation; stops go dependents first.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { inReverseDependencyOrder, chainDepth } = require('../../daemon/dependencies')
const { checkDependencies, findCycle, startWaves } = require('../../lib/shared/config/dependencies')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { waitFor } = require('../helpers/wait')

const spec = (name, dependsOn = [], extra = {}) => fakeSpec(name, { dependsOn, ...extra })

test('config: unknown names, an app depending on itself and circles are config errors', () => {
  assert.doesNotThrow(() => checkDependencies([spec('migrate'), spec('api', ['migrate']), spec('web', ['api', 'migrate'])]))
  assert.throws(() => checkDependencies([spec('api', ['migrat']), spec('migrate')], { file: 'eco.js' }),
    { code: 'XPM_ERR_CONFIG_INVALID', message: /app "api" in eco\.js depends on "migrat", which is not an app of the file — did you mean "migrate"\?/ })
  assert.throws(() => checkDependencies([spec('api', ['api'])]), { code: 'XPM_ERR_CONFIG_INVALID', message: /depends on itself/ })
  assert.throws(() => checkDependencies([spec('a', ['c']), spec('b', ['a']), spec('c', ['b']), spec('d')]),
    { code: 'XPM_ERR_CONFIG_INVALID', message: /depends_on goes round in a circle: a → c → b → a/ })
  // --only: a dependency left out of the selection is still a name of the file
  assert.doesNotThrow(() => checkDependencies([spec('api', ['db'])], { known: ['db', 'api'] }))
  assert.equal(findCycle([spec('a', ['b']), spec('b')]), null)
  assert.deepEqual(startWaves([spec('web', ['api']), spec('api', ['migrate']), spec('migrate'), spec('cron')]), [['migrate', 'cron'], ['api'], ['web']])
})

test('chainDepth and inReverseDependencyOrder: dependents first, a circle broken, never waited on', async () => {
  assert.equal(chainDepth([spec('a'), spec('b', ['a']), spec('c', ['b'])]), 3)
  assert.equal(chainDepth([spec('a'), spec('b')]), 1)
  assert.equal(chainDepth([spec('a', ['b']), spec('b', ['a'])]) >= 1, true)
  const apps = [spec('migrate'), spec('api', ['migrate']), spec('web', ['api']), spec('other')].map((s) => ({ name: s.name, spec: s }))
  const order = []
  const called = []
  const running = inReverseDependencyOrder(apps, async (app, after) => {
    called.push(app.name)
    if (after) await after
    order.push(`${app.name}:begin`)
    await new Promise(setImmediate)
    order.push(`${app.name}:end`)
    return app.name
  })
  assert.deepEqual(called.sort(), ['api', 'migrate', 'other', 'web'], 'every call in the same tick (each queues its operation at once)')
  assert.deepEqual(await running, ['migrate', 'api', 'web', 'other'], 'results in the order given')
  assert.ok(order.indexOf('web:end') < order.indexOf('api:begin'), order.join(' '))
  assert.ok(order.indexOf('api:end') < order.indexOf('migrate:begin'), order.join(' '))
  assert.ok(order.indexOf('other:begin') < order.indexOf('web:end'), 'unrelated apps go at once')
  const cyclic = [spec('a', ['b']), spec('b', ['a'])].map((s) => ({ name: s.name, spec: s }))
  const done = []
  await inReverseDependencyOrder(cyclic, async (app, after) => { await after; done.push(app.name) })
  assert.deepEqual(done.sort(), ['a', 'b'])
})

function setup () {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  const launchedApps = () => fake.launched.map((h) => h.spec.name)
  return { fake, supervisor, launchedApps }
}

test('a migration job must exit 0 before the app that depends on it starts; the app before its own dependents', async () => {
  const { fake, supervisor, launchedApps } = setup()
  const starting = supervisor.start([
    spec('web', ['api']),
    spec('api', ['migrate']),
    spec('migrate', [], { autorestart: false })
  ])
  await waitFor(() => launchedApps().includes('migrate'))
  const job = fake.launched.find((h) => h.spec.name === 'migrate')
  await waitFor(() => supervisor.apps.get('migrate').instances[0].status === 'online')
  await new Promise((resolve) => setTimeout(resolve, 50)) // observing that nothing else is launched meanwhile
  assert.deepEqual(launchedApps(), ['migrate'], 'api and web wait while the migration runs')
  assert.deepEqual(supervisor.list().map((p) => [p.name, p.status]).sort(), [['api', 'stopped'], ['migrate', 'online'], ['web', 'stopped']])
  job.markExited(0, null)
  const results = await starting
  assert.deepEqual(launchedApps(), ['migrate', 'api', 'web'], 'api once the job exited 0, web once api was ready')
  assert.deepEqual(results.map((r) => [r.name, r.failures.length]), [['web', 0], ['api', 0], ['migrate', 0]])
  assert.equal(supervisor.apps.get('migrate').instances[0].status, 'stopped')
  assert.equal(supervisor.apps.get('web').instances[0].status, 'online')

  // the stop of all goes dependents first: web, then api, then the (already stopped) job
  const stopped = []
  for (const h of fake.live()) {
    const signal = h.signal.bind(h)
    h.signal = (sig) => { stopped.push(h.spec.name); return signal(sig) }
  }
  await supervisor.stop('all')
  assert.deepEqual(stopped, ['web', 'api'])
  await supervisor.close()
})

test('a job that fails, or a dependency that is not managed, stops the dependent from starting (XPM_ERR_DEPENDENCY_FAILED)', async () => {
  const { fake, supervisor, launchedApps } = setup()
  const starting = supervisor.start([spec('migrate', [], { autorestart: false }), spec('api', ['migrate'])])
  await waitFor(() => launchedApps().includes('migrate'))
  fake.launched[0].markExited(1, null)
  const [, api] = await starting
  assert.deepEqual(launchedApps(), ['migrate'], 'api never launched')
  assert.equal(api.action, 'failed')
  assert.equal(api.failures[0].code, 'XPM_ERR_DEPENDENCY_FAILED')
  assert.match(api.failures[0].message, /api was not started: it depends on migrate, and the job exited with code 1/)

  const [lonely] = await supervisor.start([spec('lonely', ['ghost'])])
  assert.equal(lonely.failures[0].code, 'XPM_ERR_DEPENDENCY_FAILED')
  assert.match(lonely.failures[0].message, /xpm does not manage an app named "ghost"/)
  await supervisor.close()
})

test('a dependency already running satisfies at once; a stop of the waiting dependent cancels its start', async () => {
  const { fake, supervisor, launchedApps } = setup()
  await supervisor.start([spec('db')])
  const [api] = await supervisor.start([spec('api', ['db'])])
  assert.equal(api.failures.length, 0)
  assert.deepEqual(launchedApps(), ['db', 'api'])

  const waiting = supervisor.start([spec('job', [], { autorestart: false }), spec('report', ['job'])])
  await waitFor(() => launchedApps().includes('job'))
  await supervisor.stop('report') // while it waits for the job: its start is cancelled (the app's queue)
  fake.launched.find((h) => h.spec.name === 'job').markExited(0, null)
  const [, report] = await waiting
  assert.equal(report.action, 'cancelled')
  assert.equal(launchedApps().includes('report'), false, 'a cancelled start launches nothing')
  await supervisor.close()
})

test('the last word wins with depends_on too: a start sent right after `stop all` runs after the (ordered) stop', async () => {
  const { supervisor } = setup()
  await supervisor.start([spec('db'), spec('api', ['db'])])
  const stopping = supervisor.stop('all') // api first, db once api is down
  const starting = supervisor.startTarget('db') // queued behind db's stop, never cancelled by it
  await stopping
  const started = await starting
  assert.equal(started.failures.length, 0)
  assert.deepEqual(supervisor.list().map((p) => [p.name, p.status]), [['db', 'online'], ['api', 'stopped']])
  await supervisor.close()
})

test('the daemon refuses a start whose apps depend on each other in a circle (a hand-written client), and many waiting apps share one listener', async () => {
  const { fake, supervisor, launchedApps } = setup()
  await assert.rejects(supervisor.start([spec('a', ['b']), spec('b', ['a'])]), { code: 'XPM_ERR_CONFIG_INVALID', message: /a → b → a/ })
  assert.equal(supervisor.apps.size, 0)
  const before = supervisor.listenerCount('change')
  const specs = [spec('job', [], { autorestart: false }), ...Array.from({ length: 30 }, (_, i) => spec(`w${i}`, ['job']))]
  const starting = supervisor.start(specs)
  await waitFor(() => launchedApps().includes('job'))
  await new Promise((resolve) => setTimeout(resolve, 20)) // observing that the waiting apps add no listener meanwhile
  assert.ok(supervisor.listenerCount('change') <= before + 1, `${supervisor.listenerCount('change')} listeners`)
  fake.launched[0].markExited(0, null)
  const results = await starting
  assert.equal(results.filter((r) => r.failures.length).length, 0)
  assert.equal(supervisor.listenerCount('change'), before)
  await supervisor.close()
})

test('a failed dependency is recorded: /readyz names it, the journal gets a dependency-failed event; a stop clears it, a later run of the app speaks for itself', async (t) => {
  const { createProbes } = require('../../daemon/runtime/probes')
  const { dependencyState } = require('../../daemon/dependencies')
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  const events = []
  supervisor.on('dependency-failed', (e) => events.push(e))
  const probes = createProbes({ supervisor })
  probes.markStarted()
  const starting = supervisor.start([spec('migrate', [], { autorestart: false }), spec('web', ['migrate'])])
  await waitFor(() => fake.launched.length === 1)
  assert.match(probes.ready().body, /web: waiting for its dependency migrate/)
  fake.launched[0].markExited(2, null)
  const [, web] = await starting
  assert.equal(web.action, 'failed')
  assert.match(web.failures[0].message, /web was not started: it depends on migrate, and the job exited with code 2/)
  assert.deepEqual(events.map((e) => [e.name, e.dependency, e.reason]), [['web', 'migrate', 'the job exited with code 2']])
  assert.equal(probes.ready().ok, false)
  assert.match(probes.ready().body, /web: not started: it depends on migrate, and the job exited with code 2/)
  await supervisor.stop('web')
  assert.equal(dependencyState(supervisor.apps.get('web')), null, 'stopped by the user: on purpose now')
  assert.doesNotMatch(probes.ready().body, /web/)
})

test('a stop of some instances of an app held back by a failed dependency leaves the others held back', async (t) => {
  const { dependencyState } = require('../../daemon/dependencies')
  const supervisor = new Supervisor({ launcher: fakeLauncher().launcherFor })
  t.after(() => supervisor.close())
  const [web] = await supervisor.start([spec('web', ['db'], { instances: 2 })]) // db is not managed
  assert.equal(web.action, 'failed')
  await supervisor.stop('0')
  assert.equal(dependencyState(supervisor.apps.get('web'))?.failed, true, 'web[1] is still wanted up, and still held back')
  await supervisor.stop('1')
  assert.equal(dependencyState(supervisor.apps.get('web')), null, 'none of it wanted up: stopped on purpose now')
})

test('a restart, reload, scale or start of an app held back by a failed dependency waits for it again: nothing launches while it fails', async (t) => {
  const { dependencyState } = require('../../daemon/dependencies')
  const { supervisor, launchedApps } = setup()
  t.after(() => supervisor.close())
  const [web] = await supervisor.start([spec('web', ['db'])]) // db is not managed
  assert.equal(web.action, 'failed')
  const restarted = await supervisor.restart('web')
  assert.equal(restarted.failures[0]?.code, 'XPM_ERR_DEPENDENCY_FAILED')
  assert.match(restarted.failures[0].message, /web was not started: it depends on db/)
  await assert.rejects(supervisor.reload('web'), { code: 'XPM_ERR_DEPENDENCY_FAILED' })
  await assert.rejects(supervisor.scale('web', '2'), { code: 'XPM_ERR_DEPENDENCY_FAILED' })
  const started = await supervisor.startTarget('web')
  assert.equal(started.failures[0]?.code, 'XPM_ERR_DEPENDENCY_FAILED')
  assert.deepEqual(launchedApps(), [], 'web never launched')
  assert.equal(dependencyState(supervisor.apps.get('web'))?.failed, true, 'still held back')
  assert.deepEqual(supervisor.list().map((p) => [p.name, p.wanted]), [['web', true], ['web', true]], 'the scale is recorded all the same')

  await supervisor.start([spec('db')])
  const again = await supervisor.restart('web')
  assert.deepEqual(again.failures, [])
  assert.deepEqual(launchedApps().sort(), ['db', 'web', 'web'])
  assert.equal(dependencyState(supervisor.apps.get('web')), null)
})

test('a job instance that never ran is judged stopped, not "exited with code ?"', () => {
  const { verdict } = require('../../daemon/dependencies')
  const job = (instances) => ({ deleted: false, spec: { autorestart: false }, instances })
  assert.equal(verdict(job([{ status: 'stopped', lastExit: { code: 0, signal: null } }])), 'ready')
  assert.equal(verdict(job([{ status: 'stopped', lastExit: { code: 0, signal: null } }, { status: 'stopped', lastExit: null }])), 'it is stopped (the job has not run)')
  assert.equal(verdict(job([{ status: 'stopped', lastExit: { code: 3, signal: null } }])), 'the job exited with code 3')
  assert.equal(verdict(job([{ status: 'stopped', lastExit: { code: null, signal: 'SIGKILL' } }])), 'the job exited with signal SIGKILL')
})
