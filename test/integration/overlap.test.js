'use strict'

// Issue 13: two commands on one app at the same moment. Each scenario of the issue is one test,
// against a real daemon, real socket and real workers. Overlap is made certain by a positive
// signal (a replacement worker appearing among the daemon's children, a `stopping` row), or by
// sending several requests on one socket connection without waiting: the daemon reads them in
// order. Nothing here sleeps to synchronize.

const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { describeProc, running, childrenOf, homePids, appPids, recordChildren } = require('../helpers/procs')
const { specFor, daemonClient, quietList, assertTracked, assertNoneAlive, outcomeOf } = require('../helpers/overlap')

const quiet = (h) => quietList(() => h.jlist())

test('stop during a reload: the reload is cancelled by stop, nothing of the app survives, a later start brings up exactly 2', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const env = { PORT: String(port), LISTEN_DELAY_MS: '3000' }
  const started = await h.run(['start', fixture('slow-listen.js'), '--name', 'api', '-i', '2'], { env })
  assert.equal(started.code, 0, started.stderr)
  await waitFor(async () => (await httpGet(port)).status === 200, { timeout: 20000, message: 'api answering' })
  const rec = recordChildren(() => h.daemonPid())
  t.after(() => rec.stop())
  const before = (await h.jlist()).map((p) => p.pid)
  rec.add(before)

  const reloading = h.run(['reload', 'api'])
  // positive signal: the reload forked a replacement (a daemon child that is not an old worker)
  const replacement = await waitFor(() => childrenOf(h.daemonPid()).find((pid) => !before.includes(pid)), { timeout: 20000, message: 'a replacement worker forked by the reload' })
  rec.add(replacement)
  const stopped = await h.run(['stop', 'api'])
  const reload = await reloading
  rec.stop()

  assert.equal(stopped.code, 0, stopped.stderr)
  assert.equal(reload.code, 1, `reload should fail as cancelled; exit ${reload.code}\n${reload.stdout}\n${reload.stderr}`)
  assert.match(reload.stderr, /XPM_ERR_CANCELLED/)
  assert.match(reload.stderr, /reload of api cancelled by stop/i)

  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['api', 'stopped'], ['api', 'stopped']])
  assertNoneAlive([...rec.pids, replacement, ...before], 'processes of api')
  assert.deepEqual(childrenOf(h.daemonPid()), [], 'daemon children after stop')
  assert.deepEqual(appPids(h.home, 'api'), [], 'processes with XPM_APP_NAME=api')
  await assert.rejects(httpGet(port), 'nothing listens on the port after stop')

  const again = await h.run(['start', 'api'])
  assert.equal(again.code, 0, again.stderr)
  const after = await quiet(h)
  assert.equal(after.length, 2)
  assert.ok(after.every((p) => p.status === 'online'), JSON.stringify(after.map((p) => p.status)))
  const pids = after.map((p) => p.pid).sort((a, b) => a - b)
  assert.equal(new Set(pids).size, 2)
  assert.ok(pids.every((pid) => !rec.pids.has(pid)), 'new workers, not survivors')
  assert.deepEqual(childrenOf(h.daemonPid()), pids, 'exactly the 2 listed workers run')
  assert.deepEqual(appPids(h.home, 'api'), pids)
  await waitFor(async () => pids.includes((await httpGet(port)).json?.pid), { timeout: 20000, message: 'the new workers answering' })
})

test('delete during a reload: the reload is cancelled by delete, the list is empty, nothing of the app survives', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const started = await h.run(['start', fixture('slow-listen.js'), '--name', 'api', '-i', '2'], { env: { PORT: String(port), LISTEN_DELAY_MS: '3000' } })
  assert.equal(started.code, 0, started.stderr)
  await waitFor(async () => (await httpGet(port)).status === 200, { timeout: 20000, message: 'api answering' })
  const c = await daemonClient(t, h)
  const daemonPid = c.hello.pid
  const rec = recordChildren(daemonPid)
  t.after(() => rec.stop())
  const before = (await c.request('list')).map((p) => p.pid)
  rec.add(before)
  const steps = []
  c.on('event', ({ event, data }) => { if (event === 'reload.step') steps.push(data) })

  const reloading = c.request('reload', { target: 'api' }, { timeout: 120000 })
  const replacement = await waitFor(() => childrenOf(daemonPid).find((pid) => !before.includes(pid)), { timeout: 20000, message: 'a replacement worker forked by the reload' })
  rec.add(replacement)
  const deleting = c.request('delete', { target: 'api' }, { timeout: 60000 })
  const [reload, deleted] = await Promise.allSettled([reloading, deleting])
  rec.stop()
  rec.add(steps.map((s) => s.newPid))

  assert.equal(deleted.status, 'fulfilled', deleted.reason?.message)
  assert.equal(reload.status, 'rejected', `reload should be cancelled, got ${JSON.stringify(reload.value)}`)
  assert.equal(reload.reason.code, 'XPM_ERR_CANCELLED', reload.reason.message)
  assert.match(reload.reason.message, /reload of api cancelled by delete/i)

  assert.deepEqual(await c.request('list'), [])
  assertNoneAlive([...rec.pids, replacement, ...before], 'processes of api')
  assert.deepEqual(childrenOf(daemonPid), [], 'daemon children after delete')
  assert.deepEqual(appPids(h.home, 'api'), [], 'processes with XPM_APP_NAME=api')
  await assert.rejects(httpGet(port), 'nothing listens on the port after delete')
})

test('start while the app is stopping: the start runs after the stop, one adopted process, and kill leaves nothing', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const env = { EXIT_DELAY_MS: '4000' }
  const started = await h.run(['start', fixture('slow-exit.js'), '--name', 'api', '--kill-timeout', '15s'], { env })
  assert.equal(started.code, 0, started.stderr)
  const [first] = await h.jlist()
  assert.equal(first.mode, 'fork')
  const oldPid = first.pid
  const rec = recordChildren(() => h.daemonPid())
  t.after(() => rec.stop())
  rec.add(oldPid)

  const stopping = h.run(['stop', 'api'])
  // positive signal: the app is seen stopping (its process takes 4 s to exit after SIGINT)
  await waitFor(async () => (await h.jlist())[0]?.status === 'stopping', { timeout: 15000, message: 'api stopping' })
  assert.ok(running(oldPid), 'the old process is still exiting when start is sent')
  const starting = h.run(['start', 'api'])
  const [stop, start] = await Promise.all([stopping, starting])
  assert.equal(stop.code, 0, stop.stderr)
  assert.equal(start.code, 0, start.stderr)

  const list = await quiet(h)
  for (const p of list) rec.add(p.pid)
  assert.equal(list.length, 1)
  assert.equal(list[0].status, 'online')
  assert.notEqual(list[0].pid, oldPid)
  assert.ok(!running(oldPid), 'the old process has exited')
  assertTracked(h.daemonPid(), list)
  assert.deepEqual(childrenOf(h.daemonPid()), [list[0].pid], 'exactly one process of api runs')
  assert.deepEqual(appPids(h.home, 'api'), [list[0].pid])

  const daemonPid = h.daemonPid()
  const kill = await h.run(['kill'])
  assert.equal(kill.code, 0, kill.stderr)
  rec.stop()
  assert.ok(!running(daemonPid), 'the daemon has exited')
  assertNoneAlive(rec.pids, 'processes the daemon started')
  const leftovers = homePids(h.home)
  assert.deepEqual(leftovers, [], `processes with XPM_HOME=${h.home}: ${leftovers.map(describeProc).join('; ')}`)
})

test('kill while a 6-app start is launching: the daemon exits and no process of this XPM_HOME is left', { timeout: 120000 }, async (t) => {
  const h = createHome(t)
  const c = await daemonClient(t, h)
  const daemonPid = c.hello.pid
  const rec = recordChildren(daemonPid, { interval: 20 })
  t.after(() => rec.stop())
  // ready 4 s after boot (listen_timeout 30 s): every app stays launching well past the kill
  const flags = (i) => ({ name: `app${i}`, waitReady: true, listenTimeout: '30s', killTimeout: '3s' })
  const specs = []
  for (let i = 0; i < 6; i++) specs.push(await specFor(h, fixture('ready-later.js'), flags(i), { READY_DELAY_MS: '4000' }))
  const late = await specFor(h, fixture('ready-later.js'), flags(6), { READY_DELAY_MS: '4000' })

  const starting = c.request('start', { specs, force: false }, { timeout: 120000 })
  // the children seen here count too: under load the recorder's timer may miss a short-lived one
  rec.add(await waitFor(() => { const kids = childrenOf(daemonPid); return kids.length > 0 && kids }, { timeout: 20000, interval: 10, message: 'the first app forked' }))
  const killing = c.request('kill', {}, { timeout: 30000 })
  const refused = c.request('start', { specs: [late], force: false }, { timeout: 30000 })
  const [start, kill, after] = await Promise.allSettled([starting, killing, refused])

  assert.equal(kill.status, 'fulfilled', kill.reason?.message)
  // the start was cut short: an XPM_ERR_CANCELLED (as a rejection or per app in the reply), or
  // the connection closing as the daemon went away
  const cut = outcomeOf(start)
  assert.equal(cut.ok, false, `the start should not complete: ${JSON.stringify(start.value)}`)
  assert.ok(['XPM_ERR_CANCELLED', 'XPM_ERR_DAEMON_UNREACHABLE'].includes(cut.code), `${cut.code}: ${cut.message}`)
  const refusal = outcomeOf(after)
  assert.equal(refusal.ok, false, `a start sent after kill is refused, got ${JSON.stringify(after.value)}`)

  await waitFor(() => !running(daemonPid), { timeout: 60000, message: `daemon pid ${daemonPid} to exit` })
  rec.stop()
  // checked at once: a fork worker the daemon lost would only go later, on its own (agent grace)
  const leftovers = homePids(h.home)
  assert.deepEqual(leftovers, [], `processes with XPM_HOME=${h.home} after the daemon exited: ${leftovers.map(describeProc).join('; ')}`)
  assertNoneAlive(rec.pids, 'processes the daemon started')
  assert.ok(rec.pids.size > 0, 'some app was forked before the kill')
})

test('stop 2 then reload 0, then reload api: the stopped instance stays stopped', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const started = await h.run(['start', fixture('idle-http.js'), '--name', 'api', '-i', '3'], { env: { PORT: String(port) } })
  assert.equal(started.code, 0, started.stderr)
  let list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.id, p.status]), [[0, 'online'], [1, 'online'], [2, 'online']])
  const stop = await h.run(['stop', '2'])
  assert.equal(stop.code, 0, stop.stderr)
  list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.id, p.status]), [[0, 'online'], [1, 'online'], [2, 'stopped']])
  const before = list.map((p) => p.pid)

  const one = await h.run(['reload', '0'])
  assert.equal(one.code, 0, one.stderr + one.stdout)
  list = await quiet(h)
  assert.deepEqual(list.map((p) => [p.id, p.status]), [[0, 'online'], [1, 'online'], [2, 'stopped']], 'after reload 0')
  assert.notEqual(list[0].pid, before[0], 'instance 0 was replaced')
  assert.equal(list[1].pid, before[1], 'instance 1 was not touched')
  assert.ok(!list[2].pid || !running(list[2].pid), 'instance 2 has no live process')
  assertTracked(h.daemonPid(), list)
  assert.equal(childrenOf(h.daemonPid()).length, 2)

  const mid = list.map((p) => p.pid)
  const all = await h.run(['reload', 'api'])
  assert.equal(all.code, 0, all.stderr + all.stdout)
  list = await quiet(h)
  assert.deepEqual(list.map((p) => [p.id, p.status]), [[0, 'online'], [1, 'online'], [2, 'stopped']], 'after reload api')
  assert.notEqual(list[0].pid, mid[0])
  assert.notEqual(list[1].pid, mid[1])
  assert.ok(!list[2].pid || !running(list[2].pid), 'instance 2 has no live process')
  assertTracked(h.daemonPid(), list)
  assert.deepEqual(childrenOf(h.daemonPid()), [list[0].pid, list[1].pid].sort((a, b) => a - b))
})

test('a readiness probe never satisfied: launching while it waits, not online after listen_timeout, start exits 1', { timeout: 120000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const rec = recordChildren(() => h.daemonPid())
  t.after(() => rec.stop())
  let done = false
  const closed = await freePort() // nothing listens there
  // --no-autorestart: a process not ready in time is stopped and its exit counts as a crash, so
  // with the restart policy on it would be relaunched (unit test: model-overlap.test.js).
  // (wait_ready alone is lenient, as in PM2: online at listen_timeout; pm2-e2e-start.test.js)
  const starting = h.run(['start', fixture('never-ready.js'), '--name', 'nr', '--readiness', `tcp:${closed}`, '--listen-timeout', '3s', '--no-autorestart'])
    .finally(() => { done = true })
  // every look at the row while the start waits, once the process has a pid
  const seen = []
  await waitFor(async () => {
    const finished = done
    const row = (await h.jlist()).find((p) => p.name === 'nr')
    if (row?.pid && !finished) seen.push(row.status)
    return finished
  }, { timeout: 60000, interval: 50, message: 'the start to finish' })
  const res = await starting
  rec.stop()

  assert.ok(seen.length > 0, 'the waiting process was observed with a pid')
  // launching while it waits; stopping once the deadline passed and it is being stopped; never online
  assert.ok(seen.includes('launching') && seen.every((s) => s === 'launching' || s === 'stopping'), `statuses seen while waiting for ready: ${seen.join(', ')}`)
  assert.equal(res.code, 1, `start should fail: ${res.stdout}\n${res.stderr}`)
  assert.match(res.stderr, /XPM_ERR_START_FAILED/)

  const first = await h.jlist()
  assert.equal(first.length, 1)
  assert.notEqual(first[0].status, 'online')
  const list = await quiet(h)
  assert.equal(list[0].status, 'stopped', `a process not ready in time is stopped: ${list[0].status}, last exit ${JSON.stringify(list[0].lastExit)}`)
  assert.equal(list[0].lastExit.reason, 'not ready in time')
  assertNoneAlive(rec.pids, 'the process that was not ready')
  assert.deepEqual(childrenOf(h.daemonPid()), [])
  assert.deepEqual(appPids(h.home, 'nr'), [])
})
