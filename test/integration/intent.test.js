'use strict'

// Issue 22: what the user asked is what runs. Each scenario of the audit is one test, against a
// real daemon, real socket and real workers; each failed before the intent was kept as data
// (docs/architecture.md, "Intent"). Overlap is made certain by sending several requests on one
// socket connection without waiting (the daemon reads them in order) or by a positive signal
// (a `stopping` row). Nothing here sleeps to synchronize.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture, isAlive } = require('../helpers/xpm')
const { specFor, daemonClient, quietList } = require('../helpers/overlap')

const quiet = (h) => quietList(() => h.jlist())
const statuses = (list) => list.map((p) => `${p.name}[${p.instance}]:${p.status}`)
const savedIntent = (file) => JSON.parse(fs.readFileSync(file, 'utf8')).apps.map((a) => [a.spec.name, a.instances.map((i) => i.desired)])

// SIGKILL of the daemon, the way a crash looks to the next one.
async function crashDaemon (h) {
  const pid = h.daemonPid()
  process.kill(pid, 'SIGKILL')
  await waitFor(() => !isAlive(pid), { timeout: 10000, message: `daemon ${pid} gone` })
  return pid
}

test('stop of one instance during a restart of the app stops that instance; the others end online and the restart succeeds', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-listen.js'), { name: 'api', instances: 3 }, { PORT: '0', LISTEN_DELAY_MS: '800' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec] }, { timeout: 60000 })
  const restarting = c.request('restart', { target: 'api' }, { timeout: 60000 })
  const stopping = c.request('stop', { target: '1' }, { timeout: 60000 })
  const [restart, stop] = await Promise.all([restarting, stopping])
  assert.deepEqual(stop.ids, [1])
  assert.deepEqual(restart.failures, [], JSON.stringify(restart))
  assert.deepEqual(restart.skipped, [1])
  const list = await quiet(h)
  assert.deepEqual(statuses(list), ['api[0]:online', 'api[1]:stopped', 'api[2]:online'])
})

test('stop of one instance during a fork-mode reload (as a cron, watch or memory restart runs) leaves no other instance down', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-exit.js'), { name: 'jobs', instances: 3, execMode: 'fork' }, { EXIT_DELAY_MS: '1000' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec] }, { timeout: 60000 })
  const reloading = c.request('reload', { target: 'jobs' }, { timeout: 60000 }).catch((err) => err) // fork mode: one restart after another
  await waitFor(async () => (await h.jlist()).some((p) => p.status === 'stopping'), { timeout: 20000, message: 'the reload stopping a first instance' })
  await c.request('stop', { target: '0' }, { timeout: 60000 })
  const reload = await reloading
  assert.ok(!(reload instanceof Error), `the reload goes on with the other instances: ${reload.message}`)
  assert.deepEqual(reload[0].skipped, [0])
  const list = await quiet(h)
  assert.deepEqual(statuses(list), ['jobs[0]:stopped', 'jobs[1]:online', 'jobs[2]:online'])
})

test('save during a restart, and a daemon crash during a restart, keep the app wanted online', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-exit.js'), { name: 'api', instances: 2 }, { EXIT_DELAY_MS: '1500' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec] }, { timeout: 60000 })
  const restarting = c.request('restart', { target: 'api' }, { timeout: 60000 }).catch((err) => err)
  await waitFor(async () => (await h.jlist()).every((p) => p.status === 'stopping'), { timeout: 20000, message: 'both instances stopping for the restart' })
  await c.request('save', {})
  assert.deepEqual(savedIntent(path.join(h.home, 'dump.pm2')), [['api', ['online', 'online']]])
  assert.deepEqual(savedIntent(path.join(h.home, 'state.json')), [['api', ['online', 'online']]])
  await crashDaemon(h)
  await restarting
  const list = await quiet(h) // the next command starts a daemon that recovers
  assert.deepEqual(statuses(list), ['api[0]:online', 'api[1]:online'])
})

test('a daemon crash during a delete does not bring the deleted app back', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-exit.js'), { name: 'gone', killTimeout: 8000 }, { EXIT_DELAY_MS: '5000' })
  const keep = await specFor(h, fixture('idle.js'), { name: 'kept' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec, keep] }, { timeout: 60000 })
  const deleting = c.request('delete', { target: 'gone' }, { timeout: 60000 }).catch((err) => err)
  await waitFor(async () => (await h.jlist()).some((p) => p.name === 'gone' && p.status === 'stopping'), { timeout: 20000, message: 'gone stopping' })
  await waitFor(() => savedIntent(path.join(h.home, 'state.json')).every(([name]) => name !== 'gone'), { timeout: 5000, message: 'the delete saved' })
  await crashDaemon(h)
  await deleting
  const list = await quiet(h)
  assert.deepEqual(statuses(list), ['kept[0]:online'])
})

test('stop all right after a daemon crash stays a stop: the recovery does not start the apps again', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const started = await h.run(['start', fixture('idle.js'), '--name', 'a', '-i', '2'])
  assert.equal(started.code, 0, started.stderr)
  await crashDaemon(h)
  const stopped = await h.run(['stop', 'all'])
  assert.equal(stopped.code, 0, stopped.stderr)
  const list = await quiet(h)
  assert.deepEqual(statuses(list), ['a[0]:stopped', 'a[1]:stopped'])
  const again = await h.jlist() // and it stays so
  assert.deepEqual(statuses(again), ['a[0]:stopped', 'a[1]:stopped'])
  assert.deepEqual(savedIntent(path.join(h.home, 'state.json')), [['a', ['stopped', 'stopped']]])
})

test('scale down: removed instances stay listed until their processes exit; scale to the same count with an index gap changes nothing', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-exit.js'), { name: 'w', instances: 3, killTimeout: 8000 }, { EXIT_DELAY_MS: '1500' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec] }, { timeout: 60000 })
  const scaling = c.request('scale', { target: 'w', change: '1' }, { timeout: 60000 })
  const during = await waitFor(async () => {
    const list = await h.jlist()
    return list.some((p) => p.status === 'stopping') && list
  }, { timeout: 20000, message: 'removed instances stopping' })
  assert.equal(during.length, 3, `removed instances still listed while they stop: ${statuses(during)}`)
  assert.ok(during.filter((p) => p.status === 'stopping').every((p) => p.pid > 0 && isAlive(p.pid)))
  await scaling
  assert.deepEqual(statuses(await quiet(h)), ['w[2]:online'], 'as PM2, a scale-down keeps the newest')

  // indexes 0 and 2 (1 deleted): `scale w 2` has 2 already
  await c.request('scale', { target: 'w', change: '3' }, { timeout: 60000 })
  const second = (await quiet(h)).find((p) => p.instance === 1)
  await c.request('delete', { target: String(second.id) }, { timeout: 60000 })
  const before = await quiet(h)
  assert.deepEqual(before.map((p) => p.instance).sort(), [0, 2])
  const same = await c.request('scale', { target: 'w', change: '2' }, { timeout: 60000 })
  assert.deepEqual([same.added, same.removed], [[], []])
  const after = await quiet(h)
  assert.deepEqual(after.map((p) => p.pid), before.map((p) => p.pid))
})

test('resurrect during kill is refused, and nothing runs after kill said the daemon stopped', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-exit.js'), { name: 'slow', killTimeout: 8000 }, { EXIT_DELAY_MS: '1500' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec] }, { timeout: 60000 })
  await c.request('save', {})
  const daemonPid = h.daemonPid()
  const killing = c.request('kill', {})
  const resurrect = await c.request('resurrect', {}).then(() => null, (err) => err)
  assert.equal(resurrect?.code, 'XPM_ERR_SHUTTING_DOWN')
  await killing
  await waitFor(() => !isAlive(daemonPid), { timeout: 20000, message: 'the daemon gone' })
  const { homePids } = require('../helpers/procs')
  assert.deepEqual(homePids(h.home), [], 'no process of this home runs after kill')
})

test('crash recovery honours depends_on: the dependent starts once its dependency is ready; a finished job is not run again', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const { freePort } = require('../helpers/xpm')
  const dir = fs.mkdtempSync(path.join(h.home, 'apps-'))
  const events = path.join(dir, 'events.log')
  fs.writeFileSync(path.join(dir, 'migrate.js'), `require('node:fs').appendFileSync(${JSON.stringify(events)}, 'migrate ran\\n')\n`)
  fs.writeFileSync(path.join(dir, 'api.js'), `
const fs = require('node:fs')
require('node:http').get({ host: '127.0.0.1', port: Number(process.env.DB_PORT), timeout: 2000 }, (res) => {
  res.resume()
  fs.appendFileSync(${JSON.stringify(events)}, 'api saw db up\\n')
  setInterval(() => {}, 1 << 30)
}).on('error', () => { fs.appendFileSync(${JSON.stringify(events)}, 'api saw db down\\n'); process.exit(1) })
`)
  fs.writeFileSync(path.join(dir, 'db.js'), 'setTimeout(() => require(\'node:http\').createServer((q, r) => r.end(\'ok\')).listen(Number(process.env.PORT), () => process.send(\'ready\')), 1000)\n')
  const dbPort = await freePort()
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
  { name: 'migrate', script: 'migrate.js', autorestart: false },
  { name: 'db', script: 'db.js', wait_ready: true, env: { PORT: '${dbPort}' } },
  { name: 'api', script: 'api.js', depends_on: ['db', 'migrate'], env: { DB_PORT: '${dbPort}' } }
] }\n`)
  const started = await h.run(['start', path.join(dir, 'ecosystem.config.js')], { cwd: dir })
  assert.equal(started.code, 0, started.stdout + started.stderr)
  // api is online once it runs; its request to db comes just after
  await waitFor(() => fs.readFileSync(events, 'utf8').split('\n').length === 3, { timeout: 20000, message: 'api saw db' })
  assert.equal(fs.readFileSync(events, 'utf8'), 'migrate ran\napi saw db up\n')
  await crashDaemon(h)
  const list = await quiet(h)
  assert.deepEqual(statuses(list), ['migrate[0]:stopped', 'db[0]:online', 'api[0]:online'])
  await waitFor(() => fs.readFileSync(events, 'utf8').split('\n').length === 4, { timeout: 20000, message: 'api booted again' })
  assert.equal(fs.readFileSync(events, 'utf8'), 'migrate ran\napi saw db up\napi saw db up\n')
})

test('xpm update during a fork-mode reload brings the app back online', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const spec = await specFor(h, fixture('slow-exit.js'), { name: 'api', instances: 2, execMode: 'fork' }, { EXIT_DELAY_MS: '1500' })
  const c = await daemonClient(t, h)
  await c.request('start', { specs: [spec] }, { timeout: 60000 })
  const reloading = c.request('reload', { target: 'api' }, { timeout: 60000 }).catch((err) => err)
  await waitFor(async () => (await h.jlist()).some((p) => p.status === 'stopping'), { timeout: 20000, message: 'the reload stopping a first instance' })
  const updated = await h.run(['update'], { timeout: 90000 })
  assert.equal(updated.code, 0, updated.stdout + updated.stderr)
  assert.match(updated.stdout, /2\/2 process\(es\) were online again/)
  await reloading
  assert.deepEqual(statuses(await quiet(h)), ['api[0]:online', 'api[1]:online'])
})

test('save while a depends_on dependent waits saves it as wanted online', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = fs.mkdtempSync(path.join(h.home, 'apps-'))
  const gate = path.join(dir, 'gate')
  // the dependency is ready only once the test opens the gate
  fs.writeFileSync(path.join(dir, 'db.js'), `const fs = require('node:fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(gate)})) { clearInterval(t); process.send('ready'); setInterval(() => {}, 1 << 30) } }, 50)\n`)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
  { name: 'db', script: 'db.js', wait_ready: true, listen_timeout: 60000 },
  { name: 'api', script: ${JSON.stringify(fixture('idle.js'))}, depends_on: ['db'] }
] }\n`)
  const starting = h.run(['start', path.join(dir, 'ecosystem.config.js')], { cwd: dir, timeout: 90000 })
  await waitFor(async () => (await h.jlist()).some((p) => p.name === 'db' && p.status === 'launching'), { timeout: 20000, message: 'db launching' })
  const saved = await h.run(['save'])
  assert.equal(saved.code, 0, saved.stderr)
  assert.deepEqual(savedIntent(path.join(h.home, 'dump.pm2')), [['db', ['online']], ['api', ['online']]])
  fs.writeFileSync(gate, '')
  assert.equal((await starting).code, 0)
})

test('a crash recovery that is still ending the old processes when xpm kill arrives starts nothing: nothing runs after kill', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const { homePids } = require('../helpers/procs')
  // the old copy of slow takes 3 s to exit, so the next daemon is still recovering when kill comes
  const slow = await h.run(['start', fixture('slow-exit.js'), '--name', 'slow', '--kill-timeout', '8000'], { env: { EXIT_DELAY_MS: '3000' } })
  assert.equal(slow.code, 0, slow.stderr)
  const sh = await h.run(['start', fixture('tiny-sleeper.sh'), '--name', 'sh'])
  assert.equal(sh.code, 0, sh.stderr)
  await crashDaemon(h)
  const ping = await h.run(['ping'])
  assert.equal(ping.code, 0, ping.stderr)
  const killed = await h.run(['kill'], { timeout: 60000 })
  assert.equal(killed.code, 0, killed.stdout + killed.stderr)
  await waitFor(() => homePids(h.home).length === 0, { timeout: 20000, message: 'no process of this home' })
    .catch((err) => { throw new Error(`${err.message}: ${homePids(h.home).join(', ')}`) })
})
