'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { serializeState, parseState, countInstances, summarizeApps, STATE_VERSION } = require('../../lib/shared/state/state-format')
const { parseStat, readProcStat } = require('../../lib/shared/proc-stat')
const { appsSnapshot, processesSnapshot, desiredOf, StartTimes } = require('../../daemon/persistence/snapshot')

const spec = (name, extra = {}) => ({ name, script: `/srv/${name}.js`, cwd: '/srv', instances: 2, execMode: 'cluster', env: { A: '1' }, ...extra })

test('serializeState → parseState gives the same apps, desired states and processes', () => {
  const apps = [
    { spec: spec('api'), listens: true, instances: [{ id: 0, index: 0, desired: 'online' }, { id: 1, index: 1, desired: 'stopped' }] },
    { spec: spec('jobs', { instances: 1, execMode: 'fork' }), listens: false, instances: [{ id: 4, index: 0, desired: 'online' }] }
  ]
  const processes = [{ id: 0, name: 'api', instance: 0, pid: 4242, startTime: '123456', mode: 'cluster', group: false }]
  const text = serializeState({ apps, processes, daemon: { pid: 7, version: '0.1.0' }, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) })
  assert.ok(text.endsWith('\n'))
  const state = parseState(JSON.parse(text))
  assert.equal(state.version, STATE_VERSION)
  assert.equal(state.savedAt, '2026-01-02T03:04:05.000Z')
  assert.equal(state.cleanShutdown, false)
  assert.deepEqual(state.daemon, { pid: 7, version: '0.1.0' })
  assert.deepEqual(state.apps, apps)
  assert.deepEqual(state.processes, processes)
  assert.equal(countInstances(state), 3)
  assert.equal(countInstances(state, 'online'), 2)
  assert.deepEqual(summarizeApps(state.apps), { apps: 2, instances: 3, online: 2, listenTimeout: 0 })
  assert.equal(parseState(JSON.parse(serializeState({ apps, cleanShutdown: true }))).cleanShutdown, true)
})

test('parseState accepts one desired state per app and a bare list of apps', () => {
  const state = parseState([{ spec: spec('api', { instances: 3 }), desired: 'stopped' }])
  assert.deepEqual(state.apps[0].instances, [0, 1, 2].map((index) => ({ id: null, index, desired: 'stopped' })))
  assert.deepEqual(parseState({ version: 1, apps: [{ spec: spec('w', { instances: 1 }) }] }).apps[0].instances, [{ id: null, index: 0, desired: 'online' }])
})

test('parseState refuses what a restore cannot use, saying where', () => {
  const bad = (value, re) => assert.throws(() => parseState(value, { file: '/h/dump.pm2' }), (err) => {
    assert.equal(err.code, 'XPM_ERR_DUMP_INVALID')
    assert.match(err.message, /\/h\/dump\.pm2/)
    assert.match(err.message, re)
    return true
  })
  bad(null, /JSON object/)
  bad({ apps: [] }, /version/)
  bad({ version: 99, apps: [] }, /newer xpm/)
  bad({ version: 1 }, /"apps"/)
  bad({ version: 1, apps: [{ spec: {} }] }, /no spec with a name/)
  bad({ version: 1, apps: [{ spec: spec('a') }, { spec: spec('a') }] }, /listed twice/)
  bad({ version: 1, apps: [{ spec: spec('a'), desired: 'running' }] }, /"online" or "stopped", got "running"/)
  bad({ version: 1, apps: [{ spec: spec('a'), instances: [{ desired: 'online' }] }] }, /index/)
})

test('parseState drops process records that could not identify a process', () => {
  const state = parseState({ version: 1, apps: [], processes: [{ pid: 1, startTime: '5' }, { pid: 10, startTime: 'x' }, { pid: 11 }, { pid: 12, startTime: '77' }] })
  assert.deepEqual(state.processes.map((p) => p.pid), [12])
})

test('parseStat reads field 22 after the last parenthesis, whatever the command name', () => {
  const tail = 'S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615'
  assert.deepEqual(parseStat(`4242 (node) ${tail}`), { state: 'S', ppid: 1, pgrp: 4242, flags: 4194560, startTime: '987654', ticks: 3, rssPages: 100 })
  assert.deepEqual(parseStat(`4242 (my app) (v2)) ${tail}`), { state: 'S', ppid: 1, pgrp: 4242, flags: 4194560, startTime: '987654', ticks: 3, rssPages: 100 })
  assert.equal(parseStat('garbage'), null)
  assert.equal(parseStat('1 (x) S 1 2'), null)
})

test('readProcStat: this process is found, a zombie or a missing pid is not', async () => {
  if (process.platform === 'linux') {
    const me = await readProcStat(process.pid)
    assert.equal(me.ppid, process.ppid)
    assert.match(me.startTime, /^\d+$/)
  }
  const fakeFs = (text) => ({ readFile: async () => { if (text === null) throw Object.assign(new Error('x'), { code: 'ENOENT' }); return text } })
  const tail = '1 5 5 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 555 0 0'
  assert.equal(await readProcStat(5, { fs: fakeFs(null) }), null)
  assert.equal(await readProcStat(5, { fs: fakeFs(`5 (a) Z ${tail}`) }), null)
  assert.equal((await readProcStat(5, { fs: fakeFs(`5 (a) R ${tail}`) })).startTime, '555')
})

// A supervisor as the snapshot sees it: apps with instances that have a status and a pid.
function fakeSupervisor (apps) {
  const map = new Map()
  for (const [name, statuses, mode = 'cluster'] of apps) {
    const app = { name, spec: spec(name, { execMode: mode }), listens: mode === 'cluster', instances: [] }
    app.desiredSpec = app.spec
    app.instances = statuses.map((entry, index) => ({ entry, status: Array.isArray(entry) ? entry[0] : entry, index })).map(({ entry, status, index }) => ({
      id: map.size * 10 + index,
      index,
      name,
      status,
      wanted: Array.isArray(entry) ? entry[1] : ['online', 'launching', 'waiting restart', 'errored'].includes(entry),
      spec: app.spec,
      pid: ['online', 'launching', 'stopping'].includes(status) ? 1000 + map.size * 10 + index : 0,
      processes () { return this.pid ? [{ pid: this.pid, groupLeader: mode === 'fork', exited: false }] : [] }
    }))
    app.kept = app.instances
    map.set(name, app)
  }
  return { apps: map, allInstances: () => [...map.values()].flatMap((a) => a.instances) }
}

test('desired state is the intent, never a status: an instance stopped by a restart under way is still wanted online', () => {
  for (const status of ['online', 'launching', 'waiting restart', 'errored', 'stopped', 'stopping']) {
    assert.equal(desiredOf({ status, wanted: true }), 'online', status)
    assert.equal(desiredOf({ status, wanted: false }), 'stopped', status)
  }
  // api[1] is stopped by a restart in progress (wanted), jobs[0] is stopping because the user stopped it
  const sup = fakeSupervisor([['api', ['online', ['stopped', true], 'errored']], ['jobs', [['stopping', false]], 'fork']])
  assert.deepEqual(appsSnapshot(sup).map((a) => [a.spec.name, a.listens, a.instances.map((i) => `${i.id}:${i.desired}`)]), [
    ['api', true, ['0:online', '1:online', '2:online']],
    ['jobs', false, ['10:stopped']]
  ])
  // an app being deleted is not saved; an instance being removed (scale down) is not saved either
  sup.apps.get('jobs').deleting = true
  sup.apps.get('api').kept = sup.apps.get('api').instances.slice(0, 2)
  assert.deepEqual(appsSnapshot(sup).map((a) => [a.spec.name, a.spec.instances, a.instances.length]), [['api', 2, 2]])
})

test('start times: the stat the launcher read at the spawn is used, not read again; a zombie or no note is read', async () => {
  const reads = []
  const startTimes = new StartTimes({ selfPid: 99, readStat: async (pid) => { reads.push(pid); return { ppid: 99, startTime: `r${pid}` } } })
  assert.equal(await startTimes.of(5, Promise.resolve({ state: 'S', ppid: 99, startTime: '555' })), '555')
  assert.equal(await startTimes.of(6, Promise.resolve({ state: 'S', ppid: 1, startTime: '666' })), null, 'not this daemon\'s child')
  assert.equal(await startTimes.of(7, Promise.resolve({ state: 'Z', ppid: 99, startTime: '777' })), 'r7')
  assert.equal(await startTimes.of(8, Promise.resolve(null)), 'r8')
  assert.equal(await startTimes.of(9), 'r9')
  assert.deepEqual(reads, [7, 8, 9])
})

test('processes: recorded with their start time only while this daemon is their parent', async () => {
  const sup = fakeSupervisor([['api', ['online', 'online']], ['jobs', ['online'], 'fork']])
  const reads = []
  const startTimes = new StartTimes({
    selfPid: 99,
    readStat: async (pid) => {
      reads.push(pid)
      return pid === 1001 ? { ppid: 1, startTime: '1' } : { ppid: 99, startTime: String(pid * 2) }
    }
  })
  const first = await processesSnapshot(sup, startTimes)
  assert.deepEqual(first, [
    { id: 0, name: 'api', instance: 0, pid: 1000, startTime: '2000', mode: 'cluster', group: false },
    { id: 10, name: 'jobs', instance: 0, pid: 1010, startTime: '2020', mode: 'fork', group: true }
  ])
  await processesSnapshot(sup, startTimes)
  assert.deepEqual(reads, [1000, 1001, 1010, 1001], 'a known pid is not read again')
  sup.apps.get('api').instances[0].pid = 0
  await processesSnapshot(sup, startTimes)
  assert.equal(startTimes.cache.has(1000), false, 'gone pids are forgotten')
})
