'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture, isAlive } = require('../helpers/xpm')

const summary = (list) => list.map((p) => [p.id, p.name, p.instance, p.mode, p.status])
const ok = (res) => assert.equal(res.code, 0, res.stderr)

// Alive and not a zombie: an orphan's exit is reaped by PID 1, which some sandboxes never do.
function running (pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0])
  } catch {
    return process.platform === 'linux' ? false : isAlive(pid)
  }
}

test('save → kill → resurrect gives back the same apps, instance counts, env and online/stopped states', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()]
  ok(await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(p1), GREETING: 'hello web' } }))
  ok(await h.run(['start', fixture('echo-http.js'), '--name', 'solo'], { env: { PORT: String(p2), GREETING: 'hello solo' } }))
  ok(await h.run(['start', fixture('echo-http.js'), '--name', 'resting'], { env: { PORT: String(p3) } }))
  ok(await h.run(['stop', 'resting']))
  ok(await h.run(['stop', '1'])) // one of the two web instances
  const before = summary(await h.jlist())
  assert.deepEqual(before.map((p) => p[4]), ['online', 'stopped', 'online', 'stopped'])

  const saved = await h.run(['save'])
  ok(saved)
  assert.match(saved.stdout, /saved 3 app\(s\), 4 process\(es\)/)
  const dumpFile = path.join(h.home, 'dump.pm2')
  const firstDump = fs.readFileSync(dumpFile, 'utf8')
  assert.equal(fs.statSync(dumpFile).mode & 0o777, 0o600, 'the dump holds environments: owner only')

  // a save that cannot complete leaves the previous one intact and readable
  fs.mkdirSync(dumpFile + '.tmp')
  const failed = await h.run(['save'])
  assert.equal(failed.code, 1)
  assert.match(failed.stderr, /XPM_ERR_SAVE_FAILED/)
  assert.equal(fs.readFileSync(dumpFile, 'utf8'), firstDump)
  fs.rmdirSync(dumpFile + '.tmp')

  ok(await h.run(['kill']))
  assert.deepEqual(await h.jlist(), [], 'a clean kill restores nothing on the next start')

  const res = await h.run(['resurrect'])
  ok(res)
  assert.match(res.stdout, /web: restored \(1 online, 1 stopped\)/)
  assert.deepEqual(summary(await h.jlist()), before, 'same ids, instances, modes and states')
  const web = await httpGet(p1)
  assert.equal(web.json.env.GREETING, 'hello web')
  assert.equal((await httpGet(p2)).json.env.GREETING, 'hello solo')
  await assert.rejects(httpGet(p3), 'a stopped app stays stopped')

  // apps already running are not duplicated
  const again = await h.run(['resurrect'])
  ok(again)
  assert.match(again.stdout, /already managed/)
  assert.deepEqual(summary(await h.jlist()), before)

  // an empty list never replaces a non-empty save without --force
  ok(await h.run(['delete', 'all']))
  const empty = await h.run(['save'])
  assert.equal(empty.code, 1)
  assert.match(empty.stderr, /XPM_ERR_SAVE_EMPTY/)
  assert.equal(fs.readFileSync(dumpFile, 'utf8'), firstDump)
  ok(await h.run(['save', '--force']))
  assert.deepEqual(JSON.parse(fs.readFileSync(dumpFile, 'utf8')).apps, [])
  assert.equal(fs.readFileSync(dumpFile + '.bak', 'utf8'), firstDump, 'the previous save is kept as dump.pm2.bak')
})

test('kill -9 of the daemon: no cluster worker keeps running, the next command restores the apps and says so', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()]
  ok(await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(p1) } }))
  // no agent (XPM_AGENT=0): nothing makes this fork-mode child exit with the daemon, like a shell
  // script's child
  ok(await h.run(['start', fixture('echo-http.js'), '--name', 'forky'], { env: { PORT: String(p2), XPM_AGENT: '0' } }))
  ok(await h.run(['start', fixture('echo-http.js'), '--name', 'off'], { env: { PORT: String(p3) } }))
  ok(await h.run(['stop', 'off']))
  const before = await h.jlist()
  const webPids = before.filter((p) => p.name === 'web').map((p) => p.pid)
  const forkyPid = before.find((p) => p.name === 'forky').pid
  // the state is saved after a short debounce
  await waitFor(() => {
    const state = JSON.parse(fs.readFileSync(path.join(h.home, 'state.json'), 'utf8'))
    return state.processes.length === 3 && state.apps.length === 3
  }, { message: 'state.json with the three processes' })

  const daemonPid = h.daemonPid()
  process.kill(daemonPid, 'SIGKILL')
  await waitFor(() => !isAlive(daemonPid), { message: 'the daemon to die' })
  await waitFor(() => webPids.every((pid) => !running(pid)), { timeout: 5000, message: 'cluster workers to exit with their primary' })
  assert.ok(running(forkyPid), 'the fork-mode child outlived the daemon (what the recovery must clean up)')
  await assert.rejects(httpGet(p1))

  const listed = await h.run(['list'])
  ok(listed)
  assert.match(listed.stderr, /the daemon restarted after a crash \(previous pid \d+\) and restored 3 apps/)
  const after = await waitFor(async () => {
    const list = await h.jlist()
    return list.filter((p) => p.status === 'online').length === 3 && list
  }, { timeout: 15000, message: 'the restored apps online' })
  assert.deepEqual(summary(after), summary(before))
  assert.ok(after.every((p) => !p.pid || (!webPids.includes(p.pid) && p.pid !== forkyPid)), 'new pids')
  assert.equal(running(forkyPid), false, 'the orphan was stopped before the restore')
  assert.ok(webPids.concat(forkyPid).every((pid) => !after.some((p) => p.pid === pid)))
  assert.ok(after.filter((p) => p.name === 'web').map((p) => p.pid).includes((await httpGet(p1)).json.pid))
  assert.equal((await httpGet(p2)).json.pid, after.find((p) => p.name === 'forky').pid)
  await assert.rejects(httpGet(p3))

  const second = await h.run(['list'])
  assert.doesNotMatch(second.stderr, /crash/, 'the notice is printed once')
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /outlived the previous daemon/)
  assert.match(log, /did not shut down cleanly/)
})
