'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Supervisor } = require('../../daemon/supervisor')
const { fakeLauncher } = require('../helpers/fake-launcher')
const { createPersistence } = require('../../daemon/persistence')
const { checkHandover, handoverWindow } = require('../../daemon/persistence/handover')
const { readSavedState } = require('../../lib/shared/state/read-saved')
const { serializeState } = require('../../lib/shared/state/state-format')
const { tempDir } = require('../helpers/tmp')

const T0 = Date.UTC(2026, 10, 23, 3, 0, 0)
const spec = (name, extra = {}) => ({ name, script: `/srv/${name}.js`, cwd: '/srv', instances: 1, execMode: 'fork', interpreter: 'node', env: {}, minUptime: 0, ...extra })
const app = (name, desired = 'online', extra = {}) => ({ spec: spec(name, extra), listens: false, instances: [{ id: null, index: 0, desired }] })
const saved = (apps, extra = {}) => serializeState({ apps, now: () => T0, ...extra })

function tmpHome (t) {
  const home = tempDir('xpm-files-')
  t.after(() => fs.rmSync(home, { recursive: true, force: true }))
  return { home, stateFile: path.join(home, 'state.json'), dumpFile: path.join(home, 'dump.pm2') }
}

const aside = (dir, name) => fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.corrupt-`))

// ---- readSavedState -------------------------------------------------------------------------

test('a healthy file is read as it is; a missing one is null even with a .bak (a deleted save stays deleted)', async (t) => {
  const { home, dumpFile } = tmpHome(t)
  assert.equal(await readSavedState(dumpFile, { fallback: true }), null)
  fs.writeFileSync(dumpFile + '.bak', saved([app('old')]))
  assert.equal(await readSavedState(dumpFile, { fallback: true }), null)
  fs.writeFileSync(dumpFile, saved([app('api')]))
  const read = await readSavedState(dumpFile, { fallback: true })
  assert.equal(read.from, dumpFile)
  assert.equal(read.damaged, null)
  assert.deepEqual(read.state.apps.map((a) => a.spec.name), ['api'])
  assert.deepEqual(aside(home, 'dump.pm2'), [])
})

test('a damaged file is set aside, its .bak used, and the result says what may be missing', async (t) => {
  const { home, dumpFile } = tmpHome(t)
  fs.writeFileSync(dumpFile + '.bak', saved([app('api')]))
  // the last save, cut short: it named a second app the backup does not have
  fs.writeFileSync(dumpFile, saved([app('api'), app('worker')]).slice(0, -60))
  const read = await readSavedState(dumpFile, { fallback: true, promote: true, now: () => T0 })
  assert.equal(read.from, dumpFile + '.bak')
  assert.deepEqual(read.state.apps.map((a) => a.spec.name), ['api'])
  assert.deepEqual(read.damaged.mayBeMissing, ['worker'])
  assert.equal(read.damaged.setAside, `${dumpFile}.corrupt-20261123T030000.000Z`)
  assert.equal(read.damaged.usedSavedAt, new Date(T0).toISOString())
  assert.match(read.damaged.message, /^dump\.pm2 is damaged \(.+\); used dump\.pm2\.bak instead, the save before it \(2026-11-23T03:00:00\.000Z\)\. Changes saved since \(last write .+\) are lost: apps named in the damaged file but not in the backup: worker; .*kept as dump\.pm2\.corrupt-20261123T030000\.000Z$/)
  assert.deepEqual(aside(home, 'dump.pm2'), ['dump.pm2.corrupt-20261123T030000.000Z'])
  // promote: dump.pm2 is the backup's content again, so the next reader finds the same apps
  const again = await readSavedState(dumpFile, { fallback: true })
  assert.equal(again.damaged, null)
  assert.deepEqual(again.state.apps.map((a) => a.spec.name), ['api'])
})

test('a file of the wrong shape is damage too; a file from a newer xpm is refused and left alone', async (t) => {
  const { home, stateFile } = tmpHome(t)
  fs.writeFileSync(stateFile + '.bak', saved([app('api')]))
  fs.writeFileSync(stateFile, JSON.stringify({ version: 1, apps: 'nope' }))
  const read = await readSavedState(stateFile, { fallback: true })
  assert.match(read.damaged.error, /"apps" to be an array/)
  assert.equal(aside(home, 'state.json').length, 1)
  assert.equal(fs.existsSync(stateFile), false, 'without promote the damaged file is only set aside')

  fs.writeFileSync(stateFile, JSON.stringify({ version: 99, apps: [] }))
  await assert.rejects(readSavedState(stateFile, { fallback: true }), (err) => err.code === 'XPM_ERR_DUMP_INVALID' && /newer xpm/.test(err.message))
  assert.equal(fs.existsSync(stateFile), true)
})

test('damaged and no usable .bak: XPM_ERR_DUMP_INVALID, naming where the damaged file went', async (t) => {
  const { home, dumpFile } = tmpHome(t)
  fs.writeFileSync(dumpFile, '{"version": 1, "apps": [')
  fs.writeFileSync(dumpFile + '.bak', '')
  await assert.rejects(readSavedState(dumpFile, { fallback: true, now: () => T0 }), (err) => {
    assert.equal(err.code, 'XPM_ERR_DUMP_INVALID')
    assert.match(err.message, /dump\.pm2 is damaged .* and dump\.pm2\.bak is missing or damaged too; it is kept as dump\.pm2\.corrupt-/)
    return true
  })
  assert.equal(aside(home, 'dump.pm2').length, 1)
})

// ---- update.json hand-over --------------------------------------------------------------------

test('a hand-over is taken only when fresh and from the daemon that just left', () => {
  const update = (extra = {}) => ({ savedAt: new Date(T0).toISOString(), daemon: { pid: 4242 }, apps: [app('api')], ...extra })
  const previous = (extra = {}) => ({ savedAt: new Date(T0 + 2000).toISOString(), daemon: { pid: 4242 }, cleanShutdown: true, ...extra })
  assert.deepEqual(checkHandover({ update: update(), previous: previous(), now: T0 + 3000 }), { fresh: true })
  assert.deepEqual(checkHandover({ update: update({ daemon: null }), previous: null, now: T0 + 3000 }), { fresh: true }, 'written by the CLI, no daemon named')

  const stale = (args, re) => {
    const verdict = checkHandover({ previous: previous(), now: T0 + 3000, ...args })
    assert.equal(verdict.fresh, false)
    assert.match(verdict.why, re)
  }
  stale({ update: update(), now: T0 + 3 * 24 * 3600 * 1000 }, /written 3d ago/)
  stale({ update: update({ savedAt: undefined }) }, /no time/)
  stale({ update: update(), now: T0 - 3600 * 1000 }, /future/)
  stale({ update: update(), isAlive: (pid) => pid === 4242 }, /pid 4242\) is still running/)
  stale({ update: update(), previous: previous({ daemon: { pid: 777 } }) }, /last daemon here was pid 777/)
  // interrupted: the daemon kept serving for an hour after writing it, then `xpm kill`, `xpm list`
  stale({ update: update(), previous: previous({ savedAt: new Date(T0 + 3600 * 1000).toISOString() }), now: T0 + 3600 * 1000 + 1000 }, /written 1h ago/)
  // the apps changed after it was written: the kept desired state (state.json) says otherwise
  assert.deepEqual(checkHandover({ update: update(), previous: previous({ apps: [app('api')] }), now: T0 + 3000 }), { fresh: true })
  stale({ update: update(), previous: previous({ apps: [app('web')] }) }, /the apps changed after it was written \(api deleted since; web added since\)/)
  stale({ update: update(), previous: previous({ apps: [app('api', 'stopped')] }) }, /api changed since/)
})

test('the hand-over window: 60 s plus the longest kill_timeout, at most 3 minutes', () => {
  assert.equal(handoverWindow([app('a')]), 60000)
  assert.equal(handoverWindow([app('a', 'online', { killTimeout: 30000 }), app('b', 'online', { killTimeout: 5000 })]), 90000)
  assert.equal(handoverWindow([app('a', 'online', { killTimeout: 3600000 })]), 180000)
})

// ---- the daemon's start-up and its methods ------------------------------------------------------

function newDaemon (paths, options = {}) {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  const logged = []
  const log = (level) => (obj, msg) => logged.push({ level, ...obj, msg })
  const logger = { info: log('info'), warn: log('warn'), error: log('error') }
  const persistence = createPersistence({ paths, supervisor, logger, validate: (s) => s, now: () => T0 + 5000, alive: () => false, ...options })
  return { supervisor, persistence, logged }
}

test('a crash with a damaged state.json: its .bak is used (orphans, apps), with a warning in the log and the notice', async (t) => {
  const paths = tmpHome(t)
  fs.writeFileSync(paths.stateFile + '.bak', saved([app('api'), app('jobs', 'stopped')], { daemon: { pid: 4242 } }))
  fs.writeFileSync(paths.stateFile, '\0\0\0\0')
  const { supervisor, persistence, logged } = newDaemon(paths)
  await persistence.prepare()
  assert.deepEqual([...supervisor.apps.keys()], ['api', 'jobs'])
  const { restored } = persistence.hello()
  assert.equal(restored.reason, 'crash')
  assert.equal(restored.previousPid, 4242)
  assert.match(restored.warning, /^state\.json is damaged .*used state\.json\.bak instead/)
  assert.ok(logged.some((l) => l.level === 'warn' && /state\.json is damaged/.test(l.msg) && l.setAside))
  assert.equal(aside(paths.home, 'state.json').length, 1)
})

test('the state keeper keeps the previous state.json as state.json.bak', async (t) => {
  const paths = tmpHome(t)
  const { supervisor, persistence } = newDaemon(paths)
  await persistence.prepare()
  await persistence.run()
  await supervisor.start([spec('api')])
  await persistence.beforeShutdown()
  const bak = JSON.parse(fs.readFileSync(paths.stateFile + '.bak', 'utf8'))
  const now = JSON.parse(fs.readFileSync(paths.stateFile, 'utf8'))
  assert.equal(now.cleanShutdown, true)
  assert.equal(bak.cleanShutdown, false, 'the write before the last one')
  assert.deepEqual(bak.apps.map((a) => a.spec.name), ['api'])
  await supervisor.close()
  await persistence.afterShutdown()
})

test('a stale update.json is removed and logged, and a crash restore happens instead', async (t) => {
  const paths = tmpHome(t)
  const updateFile = path.join(paths.home, 'update.json')
  fs.writeFileSync(updateFile, serializeState({ apps: [app('deleted-long-ago')], daemon: { pid: 4242 }, cleanShutdown: true, now: () => T0 - 7 * 24 * 3600 * 1000 }))
  fs.writeFileSync(paths.stateFile, saved([app('api')], { daemon: { pid: 9999 } }))
  const { supervisor, persistence, logged } = newDaemon(paths)
  await persistence.prepare()
  assert.equal(fs.existsSync(updateFile), false)
  assert.deepEqual([...supervisor.apps.keys()], ['api'])
  assert.equal(persistence.hello().restored.reason, 'crash')
  assert.ok(logged.some((l) => l.level === 'warn' && /ignoring and removing a stale .*update\.json: it was written 7d ago/.test(l.msg)))
})

test('a fresh update.json from the daemon that just left is restored', async (t) => {
  const paths = tmpHome(t)
  const updateFile = path.join(paths.home, 'update.json')
  fs.writeFileSync(updateFile, serializeState({ apps: [app('api')], daemon: { pid: 4242 }, cleanShutdown: true, now: () => T0 }))
  fs.writeFileSync(paths.stateFile, saved([app('api')], { daemon: { pid: 4242 }, cleanShutdown: true, now: () => T0 + 1500 }))
  const { supervisor, persistence } = newDaemon(paths)
  await persistence.prepare()
  assert.deepEqual([...supervisor.apps.keys()], ['api'])
  assert.equal(persistence.hello().restored.reason, 'update')
})

test('resurrect with a damaged dump.pm2: the .bak apps start, the reply says what was used, a missing dump.pm2 reads the .bak; a save never backs up the damaged file', async (t) => {
  const paths = tmpHome(t)
  fs.writeFileSync(paths.dumpFile + '.bak', saved([app('api')]))
  fs.writeFileSync(paths.dumpFile, saved([app('api'), app('worker')]).slice(0, 100))
  const { supervisor, persistence } = newDaemon(paths)
  const res = await persistence.methods.resurrect({})
  assert.equal(res.file, paths.dumpFile + '.bak')
  assert.deepEqual(res.results.map((r) => [r.name, r.action]), [['api', 'restored']])
  assert.match(res.damaged.message, /dump\.pm2 is damaged/)
  assert.equal(res.damaged.setAside, `${paths.dumpFile}.corrupt-20261123T030005.000Z`)
  assert.equal(fs.existsSync(paths.dumpFile), false, 'as PM2: no dump.pm2 is left; the next resurrect reads the backup')
  const again = await persistence.methods.resurrect({})
  assert.deepEqual([again.file, again.damaged], [paths.dumpFile + '.bak', undefined])

  // damaged again, then `xpm save`: the good backup is not replaced by the damaged file
  fs.writeFileSync(paths.dumpFile, '{garbage')
  await supervisor.start([spec('jobs')])
  const saveRes = await persistence.methods.save({})
  assert.match(saveRes.damaged.message, /dump\.pm2 is damaged/)
  assert.deepEqual(JSON.parse(fs.readFileSync(paths.dumpFile + '.bak', 'utf8')).apps.map((a) => a.spec.name), ['api'])
  assert.deepEqual(JSON.parse(fs.readFileSync(paths.dumpFile, 'utf8')).apps.map((a) => a.spec.name).sort(), ['api', 'jobs'])
  await supervisor.close()
})
