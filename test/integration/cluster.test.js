'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, waitFor, freePort, httpGet, fixture, isAlive } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')

test('-i 2: two pids answer on one port; kill -9 of one worker → replaced, restart count 1, the port keeps answering', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const res = await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })
  assert.equal(res.code, 0, res.stderr + res.stdout)
  assert.match(res.stdout, /web/)
  const list = await h.jlist()
  assert.equal(list.length, 2)
  assert.ok(list.every((p) => p.status === 'online' && p.mode === 'cluster' && p.pid > 0))
  assert.deepEqual(list.map((p) => p.instance).sort(), [0, 1])
  for (const key of ['id', 'name', 'pid', 'status', 'restarts', 'cpu', 'memory', 'mode', 'instance']) assert.ok(key in list[0], key)

  const pids = new Set()
  await waitFor(async () => {
    pids.add((await httpGet(port)).json.pid)
    return pids.size === 2
  }, { message: 'both workers to answer' })
  assert.deepEqual([...pids].sort(), list.map((p) => p.pid).sort())

  const load = startLoad(port, { concurrency: 4, timeout: 3000 })
  const victim = list[0]
  process.kill(victim.pid, 'SIGKILL')
  const after = await waitFor(async () => {
    const l = await h.jlist()
    const p = l.find((x) => x.id === victim.id)
    return p.status === 'online' && p.pid !== victim.pid && p.restarts === 1 ? l : null
  }, { message: 'the killed worker to be replaced' })
  await waitFor(() => load.stats.ok > 50)
  const stats = await load.stop()
  // Node quirk: a connection the primary handed to the worker at the instant of SIGKILL is never
  // accepted nor closed (round-robin keeps it until the worker acknowledges), so that one client
  // waits for its own timeout. Nothing is refused or reset: the port keeps answering.
  const { timeout = 0, ...others } = stats.errors
  assert.deepEqual(others, {}, JSON.stringify(stats.errors))
  assert.ok(timeout <= 1, JSON.stringify(stats.errors))
  assert.equal(after.find((p) => p.id === list[1].id).pid, list[1].pid, 'the other worker was untouched')
  assert.equal((await httpGet(port)).status, 200)
})

test('the app gets the CLI environment and NODE_APP_INSTANCE; -i max uses every core', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const res = await h.run(['start', fixture('echo-http.js'), '-i', 'max', '--name', 'envy'], { env: { PORT: String(port), MY_SETTING: 'from-cli' } })
  assert.equal(res.code, 0, res.stderr)
  const list = await h.jlist()
  assert.equal(list.length, require('node:os').availableParallelism())
  const seen = new Map()
  await waitFor(async () => {
    const { json } = await httpGet(port)
    seen.set(json.instance, json.env)
    return seen.size === list.length
  })
  for (const [instance, env] of seen) {
    assert.equal(env.MY_SETTING, 'from-cli')
    assert.equal(env.NODE_APP_INSTANCE, instance)
  }
})

test('-i -1 means one fewer than the cores (at least 1); a bad -i value exits 2 and starts nothing', async (t) => {
  const h = createHome(t, { inProcess: true })
  const bad = await h.run(['start', fixture('echo-http.js'), '-i', 'maxx'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /instances.*maxx/)
  assert.ok(!h.daemonPid() || (await h.jlist()).length === 0)
  const port = await freePort()
  const ok = await h.run(['start', fixture('echo-http.js'), '-i', '-1', '--name', 'minus'], { env: { PORT: String(port) } })
  assert.equal(ok.code, 0, ok.stderr)
  assert.equal((await h.jlist()).length, Math.max(1, require('node:os').availableParallelism() - 1))
})

test('xpm kill stops every app gracefully and leaves no process behind', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'a'], { env: { PORT: String(port) } })).code, 0)
  assert.equal((await h.run(['start', fixture('heartbeat.sh'), '--name', 'b'])).code, 0)
  const pids = (await h.jlist()).map((p) => p.pid)
  const daemon = h.daemonPid()
  const res = await h.run(['kill'])
  assert.equal(res.code, 0, res.stderr)
  assert.ok(!isAlive(daemon))
  for (const pid of pids) assert.ok(!isAlive(pid), `pid ${pid} still alive`)
})
