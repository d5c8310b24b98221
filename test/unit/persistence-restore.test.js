'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { fakeLauncher } = require('../helpers/fake-launcher')
const { StateKeeper } = require('../../daemon/persistence/state-keeper')
const { reapOrphans } = require('../../daemon/persistence/reap-orphans')
const { registerApps, startRegistered } = require('../../daemon/persistence/restore')
const { parseState } = require('../../lib/shared/state/state-format')
const { runtimeExitCode, allEnded } = require('../../daemon/runtime/exit-code')

const spec = (name, extra = {}) => ({ name, script: `/srv/${name}.js`, cwd: '/srv', instances: 1, execMode: 'fork', interpreter: 'node', env: {}, minUptime: 0, ...extra })

// The real Supervisor with a launcher that forks nothing.
function newSupervisor () {
  const fake = fakeLauncher()
  const sup = new Supervisor({ launcher: fake.launcherFor })
  return Object.assign(sup, { fake })
}

const noStartTimes = { of: async () => null, prune () {} }

test('the keeper saves after a burst of changes once, debounced, and never two writes at a time', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const sup = newSupervisor()
  const writes = []
  let release
  const keeper = new StateKeeper({
    file: '/h/state.json',
    supervisor: sup,
    debounceMs: 100,
    gapMs: 0, // the least time between writes has its own test (state-keeper-gap.test.js)
    startTimes: noStartTimes,
    now: () => 0,
    write: async (file, text) => {
      writes.push(JSON.parse(text))
      if (writes.length === 2) await new Promise((resolve) => { release = resolve })
    }
  })
  await keeper.start()
  assert.equal(writes.length, 1, 'the state is saved at start')
  registerApps(sup, parseState({ version: 1, apps: [{ spec: spec('a'), desired: 'stopped' }] }), { validate: (s) => s })
  for (let n = 0; n < 5; n++) sup.emit('change')
  t.mock.timers.tick(99)
  await new Promise(setImmediate)
  assert.equal(writes.length, 1)
  t.mock.timers.tick(1)
  await new Promise(setImmediate)
  assert.equal(writes.length, 2)
  assert.deepEqual(writes[1].apps.map((a) => a.spec.name), ['a'])
  // changes while a write is running: one more write, after it
  sup.emit('change')
  t.mock.timers.tick(100)
  const third = keeper.save()
  const fourth = keeper.save()
  assert.equal(third, fourth, 'queued saves coalesce')
  await new Promise(setImmediate)
  assert.equal(writes.length, 2)
  release()
  await third
  assert.equal(writes.length, 3)
})

test('the keeper freezes the desired state at shutdown: stopping every app is not saved as "stopped"', async () => {
  const sup = newSupervisor()
  const writes = []
  const keeper = new StateKeeper({ file: '/h/state.json', supervisor: sup, startTimes: noStartTimes, write: async (f, text) => writes.push(JSON.parse(text)) })
  registerApps(sup, parseState({ version: 1, apps: [{ spec: spec('a') }] }), { validate: (s) => s })
  sup.apps.get('a').instances[0].setIntent({ wanted: true, by: 'start' })
  await keeper.start()
  await keeper.freeze()
  sup.apps.get('a').instances[0].setIntent({ wanted: false, by: 'stop' }) // what a shutdown's stop of every app does
  sup.emit('change')
  await keeper.close()
  assert.deepEqual(writes.map((w) => [w.cleanShutdown, w.apps[0].instances[0].desired]), [[false, 'online'], [true, 'online'], [true, 'online']])
})

test('the keeper logs a failing save once, and keeps the daemon running', async () => {
  const sup = newSupervisor()
  const errors = []
  const keeper = new StateKeeper({
    file: '/ro/state.json',
    supervisor: sup,
    startTimes: noStartTimes,
    write: async () => { throw Object.assign(new Error('read-only'), { code: 'XPM_ERR_SAVE_FAILED' }) },
    logger: { error: (obj) => errors.push(obj), info () {} }
  })
  await keeper.start()
  await keeper.save()
  assert.equal(errors.length, 1)
})

test('reapOrphans stops a saved process only while its pid has the saved start time', async () => {
  const table = new Map([
    [100, { startTime: '500', pgrp: 100 }], // the orphan, still there: stopped through its group
    [200, { startTime: '999', pgrp: 200 }], // pid reused by another process: never signalled
    [300, { startTime: '700', pgrp: 1 }] // a cluster worker that outlived the daemon: signalled alone
  ])
  const signals = []
  const reaped = await reapOrphans([
    { pid: 100, startTime: '500', name: 'jobs', group: true },
    { pid: 200, startTime: '600', name: 'api', group: true },
    { pid: 300, startTime: '700', name: 'web', group: false },
    { pid: 400, startTime: '1', name: 'gone' },
    { pid: process.pid, startTime: '1', name: 'self' }
  ], {
    readStat: async (pid) => table.get(pid) ?? null,
    kill: (target, sig) => {
      signals.push([target, sig])
      table.delete(Math.abs(target))
    },
    stopOptions: (rec) => ({ killSignal: rec.name === 'jobs' ? 'SIGINT' : 'SIGTERM', killTimeout: 1000 }),
    pollMs: 1
  })
  assert.deepEqual(signals, [[-100, 'SIGINT'], [300, 'SIGTERM']])
  assert.deepEqual(reaped.map((r) => [r.pid, r.outcome]), [[100, 'stopped'], [300, 'stopped']])
})

test('reapOrphans sends SIGKILL after the kill timeout', async () => {
  const table = new Map([[100, { startTime: '500', pgrp: 100 }]])
  const signals = []
  const reaped = await reapOrphans([{ pid: 100, startTime: '500', name: 'stubborn', group: true }], {
    readStat: async (pid) => table.get(pid) ?? null,
    kill: (target, sig) => {
      signals.push(sig)
      if (sig === 'SIGKILL') table.delete(100)
    },
    stopOptions: () => ({ killTimeout: 30 }),
    pollMs: 5
  })
  assert.deepEqual(signals, ['SIGTERM', 'SIGKILL'])
  assert.equal(reaped[0].outcome, 'killed')
})

test('a restore registers every app stopped with its saved intent, keeps free ids, starts only the ones wanted online', async () => {
  const sup = newSupervisor()
  const state = parseState({
    version: 1,
    apps: [
      { spec: spec('api', { instances: 2, execMode: 'cluster', interpreter: 'node' }), listens: true, instances: [{ id: 3, index: 1, desired: 'stopped' }, { id: 2, index: 0, desired: 'online' }] },
      { spec: spec('jobs'), instances: [{ id: 5, index: 0, desired: 'online' }] }
    ]
  })
  const { registered, skipped } = registerApps(sup, state, { validate: (s) => s })
  assert.deepEqual(skipped, [])
  assert.deepEqual(sup.allInstances().map((i) => [i.id, i.name, i.index, i.status]), [[2, 'api', 0, 'stopped'], [3, 'api', 1, 'stopped'], [5, 'jobs', 0, 'stopped']])
  assert.equal(sup.nextId, 6)
  assert.equal(sup.apps.get('api').listens, true)
  assert.deepEqual(sup.allInstances().map((i) => i.wanted), [true, false, true])
  const results = await startRegistered(sup, registered)
  assert.deepEqual(sup.fake.launched.map((h) => Number(h.env.XPM_ID)), [2, 5])
  assert.deepEqual(results.map((r) => [r.name, r.action, r.online, r.stopped]), [['api', 'restored', 1, 1], ['jobs', 'restored', 1, 0]])
})

test('a restore never duplicates an app and gives new ids when the saved ones are taken', () => {
  const sup = newSupervisor()
  registerApps(sup, parseState({ version: 1, apps: [{ spec: spec('api'), instances: [{ id: 0, index: 0, desired: 'online' }] }] }), { validate: (s) => s })
  const { registered, skipped } = registerApps(sup, parseState({
    version: 1,
    apps: [
      { spec: spec('api'), instances: [{ id: 0, index: 0, desired: 'online' }] },
      { spec: spec('jobs'), instances: [{ id: 0, index: 0, desired: 'online' }] },
      { spec: spec('broken'), instances: [{ id: 1, index: 0, desired: 'online' }] }
    ]
  }), { validate: (s) => { if (s.name === 'broken') throw new Error('Invalid app spec "broken"'); return s } })
  assert.deepEqual(skipped.map((s) => [s.name, s.action]), [['api', 'already running'], ['broken', 'skipped']])
  assert.deepEqual(registered.map((a) => a.name), ['jobs'])
  assert.deepEqual(sup.allInstances().map((i) => [i.id, i.name]), [[0, 'api'], [1, 'jobs']])
})

test('runtime exit status: 0 for a stop as asked, the code of a failure otherwise', () => {
  const inst = (status, lastExit, extra = {}) => ({ status, lastExit, spec: {}, ...extra })
  assert.equal(runtimeExitCode([inst('stopped', { code: null, signal: 'SIGINT' }), inst('stopped', { code: 0, signal: null }), inst('stopped', null)]), 0)
  assert.equal(runtimeExitCode([inst('stopped', { code: null, signal: 'SIGKILL' })]), 137)
  assert.equal(runtimeExitCode([inst('stopped', { code: 0 }), inst('stopped', { code: 3 })]), 3)
  assert.equal(runtimeExitCode([inst('stopped', { code: 3 }, { spec: { stopExitCodes: [3] } })]), 0)
  assert.equal(runtimeExitCode([inst('errored', { code: 0, signal: 'SIGSEGV' })]), 1)
  assert.equal(runtimeExitCode([inst('errored', { code: 2 })]), 2)
  assert.equal(allEnded([]), false)
  assert.equal(allEnded([inst('stopped'), inst('errored')]), true)
  assert.equal(allEnded([inst('stopped'), inst('waiting restart')]), false)
})

test('an app saved with reuse_port, restored by a daemon that cannot do it, comes back (round-robin) and the log says so', () => {
  const sup = newSupervisor()
  const warnings = []
  const logger = { warn: (fields, msg) => warnings.push(msg), error () {} }
  const refuse = (s) => { if (s.reusePort) throw new Error(`reuse_port of app "${s.name}": this daemon runs Node 20.0.0`) }
  const state = parseState({ version: 1, apps: [{ spec: spec('api', { execMode: 'cluster', reusePort: true }), desired: 'online' }] })
  const { registered, skipped } = registerApps(sup, state, { validate: (s) => s, logger, reusePort: refuse })
  assert.deepEqual(registered.map((a) => a.name), ['api'])
  assert.deepEqual(skipped, [])
  assert.match(warnings[0], /reuse_port of app "api": this daemon runs Node 20\.0\.0; restored with round-robin meanwhile/)
})
