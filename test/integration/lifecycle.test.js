'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture, isAlive } = require('../helpers/xpm')

test('stop / start / restart / delete by name, by id and all', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [p1, p2] = [await freePort(), await freePort()]
  assert.equal((await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'one'], { env: { PORT: String(p1) } })).code, 0)
  assert.equal((await h.run(['start', fixture('echo-http.js'), '--name', 'two'], { env: { PORT: String(p2) } })).code, 0)
  let list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.id, p.name, p.mode]), [[0, 'one', 'cluster'], [1, 'one', 'cluster'], [2, 'two', 'fork']])

  const stopById = await h.run(['stop', '1'])
  assert.equal(stopById.code, 0, stopById.stderr)
  list = await h.jlist()
  assert.deepEqual(list.map((p) => p.status), ['online', 'stopped', 'online'])

  assert.equal((await h.run(['stop', 'one'])).code, 0)
  list = await h.jlist()
  assert.deepEqual(list.map((p) => p.status), ['stopped', 'stopped', 'online'])
  await assert.rejects(httpGet(p1))

  assert.equal((await h.run(['start', 'one'])).code, 0)
  list = await h.jlist()
  assert.deepEqual(list.map((p) => p.status), ['online', 'online', 'online'])
  assert.equal((await httpGet(p1)).status, 200)

  const before = list.map((p) => p.pid)
  assert.equal((await h.run(['restart', 'all'])).code, 0)
  list = await h.jlist()
  assert.ok(list.every((p, i) => p.status === 'online' && p.pid !== before[i] && p.restarts === 1))

  assert.equal((await h.run(['restart', '2'])).code, 0)
  assert.equal((await h.jlist())[2].restarts, 2)

  assert.equal((await h.run(['delete', '2'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => p.name), ['one', 'one'])
  const pids = (await h.jlist()).map((p) => p.pid)
  assert.equal((await h.run(['delete', 'all'])).code, 0)
  assert.deepEqual(await h.jlist(), [])
  for (const pid of pids) await waitFor(() => !isAlive(pid))
})

test('PM2 smart start: a running script is not started twice without -f; -f starts another copy; start of a name restarts what runs', async (t) => {
  const h = createHome(t, { inProcess: true })
  const script = fixture('idle.js')
  assert.equal((await h.run(['start', script, '--name', 'echo'])).code, 0)
  const again = await h.run(['start', script, '--name', 'echo'])
  assert.equal(again.code, 1, again.stdout + again.stderr)
  assert.match(again.stderr, /echo already runs .*idle\.js; add -f to start another copy.*\[XPM_ERR_APP_EXISTS\]/)
  assert.equal((await h.jlist()).length, 1)
  // cli-actions-1: three starts with -f give three processes; `stop 0` stops one, `stop echo` all
  assert.equal((await h.run(['start', script, '--name', 'echo', '-f'])).code, 0)
  assert.equal((await h.run(['start', script, '--name', 'echo', '-f'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.id, p.status]), [[0, 'online'], [1, 'online'], [2, 'online']])
  assert.equal((await h.run(['stop', '0'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => p.status), ['stopped', 'online', 'online'])
  // smart-start: a stopped name starts (no restart counted), a running one restarts
  assert.equal((await h.run(['stop', 'echo'])).code, 0)
  assert.equal((await h.run(['start', 'echo'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.status, p.restarts]), [['online', 0], ['online', 0], ['online', 0]])
  assert.equal((await h.run(['start', 'echo'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.status, p.restarts]), [['online', 1], ['online', 1], ['online', 1]])
  assert.equal((await h.run(['start', '0'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => p.restarts), [2, 1, 1])
  // reset: -i 4 -f next to the running app gives 4 more
  assert.equal((await h.run(['start', script, '--name', 'echo', '-i', '4', '-f'])).code, 0)
  assert.equal((await h.jlist()).length, 7)
})

test('an app named with digits, as PM2 allows: the name acts on it, and where it is also an id the id wins', async (t) => {
  const h = createHome(t)
  const script = fixture('idle.js')
  assert.equal((await h.run(['start', script, '--name', '455'])).code, 0)
  assert.equal((await h.run(['restart', '455'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.id, p.name, p.restarts]), [[0, '455', 1]])
  assert.equal((await h.run(['restart', '0'])).code, 0)
  assert.equal((await h.jlist())[0].restarts, 2)
  // a second app called "0": `stop 0` is process 0 (the first app), `stop 1` process 1
  assert.equal((await h.run(['start', script, '--name', '0'])).code, 0)
  assert.equal((await h.run(['stop', '0'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.name, p.status]), [['455', 'stopped'], ['0', 'online']])
  assert.equal((await h.run(['delete', '455'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => p.name), ['0'])
})

test('unknown app or id, missing script, unknown command or option: one line, non-zero exit, nothing changed', async (t) => {
  const h = createHome(t, { inProcess: true })
  const missing = await h.run(['start', './nope/server.js'])
  assert.equal(missing.code, 2)
  assert.equal(missing.stderr.trim().split('\n').length, 1)
  assert.match(missing.stderr, /nope\/server\.js/)
  for (const args of [['stop', 'ghost'], ['restart', '42'], ['delete', 'ghost'], ['show', 'ghost'], ['reload', 'ghost']]) {
    const res = await h.run(args)
    assert.equal(res.code, 1, `${args.join(' ')}: ${res.stderr}`)
    assert.match(res.stderr, /ghost|42/)
    assert.match(res.stderr, /XPM_ERR_APP_NOT_FOUND/)
  }
  const unknownCmd = await h.run(['frobnicate'])
  assert.equal(unknownCmd.code, 2)
  assert.match(unknownCmd.stderr, /unknown command/)
  const unknownOpt = await h.run(['list', '--frob'])
  assert.equal(unknownOpt.code, 2)
  assert.match(unknownOpt.stderr, /unknown option/)
  assert.deepEqual(await h.jlist(), [])
})

test('a crash loop reaches errored after max_restarts with growing delays; xpm start exits non-zero', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('crash-on-boot.js'), '--name', 'loop', '--max-restarts', '4', '--exp-backoff-restart-delay', '200ms'])
  assert.notEqual(res.code, 0)
  assert.match(res.stderr, /did not reach online/)
  const [p] = await waitFor(async () => {
    const l = await h.jlist()
    return l[0].status === 'errored' ? l : null
  }, { timeout: 20000, message: 'errored' })
  assert.equal(p.restarts, 4)
  assert.equal(p.lastExit.code, 3)
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  const delays = log.filter((e) => e.event === 'status' && e.to === 'waiting restart').map((e) => e.delay)
  assert.deepEqual(delays, [200, 400, 800, 1600])
  const launches = log.filter((e) => e.event === 'status' && e.to === 'launching').map((e) => Date.parse(e.time))
  const gaps = launches.slice(1).map((t, i) => t - launches[i])
  for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i] > gaps[i - 1], `gaps should grow: ${gaps}`)
  // errored stays until the user acts
  const show = JSON.parse((await h.run(['show', 'loop', '--json'])).stdout)[0]
  assert.equal(show.status, 'errored')
  assert.equal((await h.run(['stop', 'loop'])).code, 0)
  assert.equal((await h.jlist())[0].status, 'stopped')
})

test('an app that crashes after running a while is restarted each time; --no-autorestart leaves it stopped', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('crash-after-ms.js'), '--name', 'flaky', '--max-restarts', '3'], { env: { CRASH_AFTER_MS: '1200' } })).code, 0)
  await waitFor(async () => (await h.jlist())[0].restarts >= 2, { timeout: 15000, message: 'two restarts' })
  assert.notEqual((await h.jlist())[0].status, 'errored')

  assert.equal((await h.run(['start', fixture('crash-after-ms.js'), '--name', 'once', '--no-autorestart'], { env: { CRASH_AFTER_MS: '1300' } })).code, 0)
  const p = await waitFor(async () => (await h.jlist()).find((x) => x.name === 'once' && x.status === 'stopped'), { message: 'stopped' })
  assert.equal(p.restarts, 0)
  assert.equal(p.lastExit.code, 1)
})

test('an ES-module app runs in cluster mode and in fork mode; a "type": "module" package too', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()]
  assert.equal((await h.run(['start', fixture('esm-http.mjs'), '-i', '2', '--name', 'esm-cluster'], { env: { PORT: String(p1) } })).code, 0)
  assert.equal((await h.run(['start', fixture('esm-http.mjs'), '--name', 'esm-fork'], { env: { PORT: String(p2) } })).code, 0)
  assert.equal((await h.run(['start', fixture('esm-pkg/server.js'), '-i', '1', '--name', 'esm-pkg'], { env: { PORT: String(p3) } })).code, 0)
  for (const port of [p1, p2, p3]) assert.equal((await httpGet(port)).json.esm, true)
  const modes = Object.fromEntries((await h.jlist()).map((p) => [p.name, p.mode]))
  assert.deepEqual(modes, { 'esm-cluster': 'cluster', 'esm-fork': 'fork', 'esm-pkg': 'cluster' })
})

test('--node-args=--experimental-modules: imports without an extension resolve as in Node 8–18, fork and cluster (PM2 e2e cli/mjs)', async (t) => {
  const h = createHome(t, { inProcess: true })
  const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()]
  const entry = fixture('esm-bare/index.mjs')
  assert.equal((await h.run(['start', entry, '--node-args=--experimental-modules', '--name', 'fork'], { env: { PORT: String(p1) } })).code, 0)
  assert.equal((await h.run(['start', entry, '--node-args=--experimental-specifier-resolution=node', '-i', '2', '--name', 'cluster'], { env: { PORT: String(p2) } })).code, 0)
  // a fork-mode ES module is online once its entry has run: it listens a moment later
  for (const port of [p1, p2]) assert.deepEqual(await waitFor(async () => (await httpGet(port)).json, { message: `port ${port} answering` }), { answer: 42, where: 'dir/index.js' })
  // without either flag, Node's own resolution: the import fails, the app ends errored
  await h.run(['start', entry, '--name', 'plain', '--max-restarts', '1'], { env: { PORT: String(p3) } })
  await waitFor(async () => (await h.jlist()).find((p) => p.name === 'plain').status === 'errored')
  assert.match((await h.run(['logs', 'plain', '--nostream', '--err'])).stdout, /ERR_MODULE_NOT_FOUND/)
})

test('a non-Node program runs in fork mode, through --interpreter or as an executable', async (t) => {
  const h = createHome(t, { inProcess: true })
  const outA = path.join(h.home, 'a.pid')
  const outB = path.join(h.home, 'b.pid')
  assert.equal((await h.run(['start', fixture('heartbeat.sh'), '--name', 'exe'], { env: { OUT_FILE: outA } })).code, 0)
  assert.equal((await h.run(['start', fixture('heartbeat.sh'), '--name', 'viabash', '--interpreter', 'bash'], { env: { OUT_FILE: outB } })).code, 0)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.mode, p.status]), [['exe', 'fork', 'online'], ['viabash', 'fork', 'online']])
  await waitFor(() => fs.existsSync(outA) && fs.existsSync(outB))
  assert.equal(Number(fs.readFileSync(outA, 'utf8')), list[0].pid)
  assert.equal((await h.run(['stop', 'all'])).code, 0)
  for (const p of list) assert.ok(!isAlive(p.pid))
})

test('an app that fails on boot: xpm start exits 1 and shows the error it printed', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('missing-module.js'), '--name', 'broken', '--max-restarts', '1'])
  assert.equal(res.code, 1)
  assert.match(res.stderr, /Error: Cannot find module 'a-module-that-is-not-installed'/)
  assert.match(res.stderr, /broken\[0\].*exited with code 1 before it was ready.*XPM_ERR_START_FAILED/)
})

test('PM2 app-config-update: `start <id> --name <new>` renames and restarts; `start <name> --node-args` restarts with them', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('idle.js'), '--name', 'echo'])).code, 0)
  const renamed = await h.run(['start', '0', '--name', 'new-name-2'])
  assert.equal(renamed.code, 0, renamed.stderr)
  assert.deepEqual((await h.jlist()).map((p) => [p.id, p.name, p.status]), [[0, 'new-name-2', 'online']])
  const args = await h.run(['start', 'new-name-2', '--node-args', '--max-old-space-size=100'])
  assert.equal(args.code, 0, args.stderr)
  const [shown] = JSON.parse((await h.run(['show', 'new-name-2', '--json'])).stdout)
  assert.deepEqual(shown.spec.nodeArgs, ['--max-old-space-size=100'])
  assert.equal(shown.status, 'online')
})

test('PM2 cli/reload: a restart of a stopped app starts it without counting a restart; a restart of a running one counts one', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('idle.js'), '--name', 'd'])).code, 0)
  assert.equal((await h.run(['stop', 'd'])).code, 0)
  assert.equal((await h.run(['restart', 'd'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.status, p.restarts]), [['online', 0]])
  assert.equal((await h.run(['restart', 'd'])).code, 0)
  assert.deepEqual((await h.jlist()).map((p) => [p.status, p.restarts]), [['online', 1]])
})
