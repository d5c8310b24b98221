'use strict'

// Every way a serving process ends drains it first (issue 34, part 1): keep-alive clients get
// `Connection: close` on their next answer and idle ones are closed between requests, so no
// request already on the wire is reset. Only refused connections (the port closed: the app is
// gone) may fail; a reset or a hang-up is a lost request. And an idle client never holds a stop
// until SIGKILL.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, freePort, fixture, httpGet, ROOT } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')

const RUNTIME = path.join(ROOT, 'bin', 'xpm-runtime')
const CLIENTS = 25

function lost (stats) {
  return Object.entries(stats.errors).filter(([why]) => why !== 'ECONNREFUSED')
}

async function underLoad (port, act) {
  await waitFor(async () => (await httpGet(port)).status === 200, { timeout: 20000, message: 'the app answering' })
  const load = startLoad(port, { concurrency: CLIENTS, keepAlive: true, untilRefused: true })
  try {
    await waitFor(() => load.stats.ok > 300, { timeout: 20000, message: 'the load is answered' })
    await act()
  } finally {
    await load.stop()
  }
  return load.stats
}

for (const [mode, args] of [['cluster', ['-i', '2']], ['fork', []]]) {
  test(`${mode} mode: stop, restart and delete under ${CLIENTS} keep-alive clients lose no request`, async (t) => {
    const h = createHome(t)
    const port = await freePort()
    const started = await h.run(['start', fixture('graceful-http.js'), '--name', 'api', ...args, '--kill-timeout', '8000'], { env: { PORT: String(port) } })
    assert.equal(started.code, 0, started.stderr)
    for (const command of [['restart', 'api'], ['stop', 'api'], ['delete', 'api']]) {
      if (command[0] === 'delete') { // stopped by the step before
        const again = await h.run(['start', 'api'])
        assert.equal(again.code, 0, again.stderr)
      }
      const stats = await underLoad(port, async () => {
        const res = await h.run(command)
        assert.equal(res.code, 0, res.stderr)
      })
      assert.deepEqual(lost(stats), [], `xpm ${command.join(' ')}: ${JSON.stringify(stats.errors)} (${stats.ok} answered)`)
    }
  })
}

test(`xpm-runtime SIGTERM with ${CLIENTS} keep-alive clients: no reset, three times in a row`, async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  for (let run = 0; run < 3; run++) {
    const port = await freePort()
    const rt = spawn(process.execPath, [RUNTIME, fixture('idle-http.js'), '-i', '2', '--name', 'api'], { cwd: dir, env: { ...h.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    rt.stderr.on('data', (d) => { stderr += d })
    rt.stdout.resume()
    const exited = new Promise((resolve) => rt.once('exit', (code, signal) => resolve({ code, signal })))
    t.after(() => { try { rt.kill('SIGKILL') } catch {} })
    const stats = await underLoad(port, async () => {
      rt.kill('SIGTERM')
      assert.equal((await exited).code, 0, stderr)
    })
    assert.deepEqual(lost(stats), [], `run ${run + 1}: ${JSON.stringify(stats.errors)} (${stats.ok} answered)`)
  }
})

// Keep-alive clients that stay idle: the stop closes them between requests and the worker leaves
// by itself, long before a kill_timeout of 60 s would end it with SIGKILL.
for (const [mode, args] of [['cluster', ['-i', '1']], ['fork', []]]) {
  test(`${mode} mode: idle keep-alive clients do not hold a stop until SIGKILL`, async (t) => {
    const h = createHome(t)
    const port = await freePort()
    const started = await h.run(['start', fixture('graceful-http.js'), '--name', 'idle', ...args, '--kill-timeout', '60000'], { env: { PORT: String(port) } })
    assert.equal(started.code, 0, started.stderr)
    const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60000 })
    t.after(() => agent.destroy())
    const sockets = []
    await Promise.all(Array.from({ length: 5 }, () => new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, agent }, (res) => { sockets.push(res.socket); res.resume(); res.on('end', resolve) }).on('error', reject)
    })))
    const closed = sockets.map((s) => new Promise((resolve) => s.once('close', (hadError) => resolve(hadError))))
    const res = await h.run(['stop', 'idle'], { timeout: 50000 })
    assert.equal(res.code, 0, res.stderr)
    assert.deepEqual(await Promise.all(closed), sockets.map(() => false), 'each idle client was closed cleanly')
    const logs = await h.run(['logs', 'idle', '--lines', '20', '--nostream'])
    if (mode === 'fork') assert.match(logs.stdout, /exit \d+ SIGINT/, 'the app ended itself on its stop signal')
    const why = await h.run(['jlist'])
    assert.doesNotMatch(why.stdout, /SIGKILL/)
  })
}

// --drain-delay (XPM_DRAIN_DELAY): after SIGTERM /readyz fails at once, and the apps serve on,
// new connections included, for the delay; only then do they drain. A bad value is refused.
test('xpm-runtime --drain-delay: /readyz fails at once, the app serves on through the delay, then the runtime exits 0', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const [port, probePort] = [await freePort(), await freePort()]
  const rt = spawn(process.execPath, [RUNTIME, fixture('idle-http.js'), '-i', '2', '--name', 'api', '--drain-delay', '4s', '--metrics-address', String(probePort)], { cwd: dir, env: { ...h.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  rt.stderr.on('data', (d) => { stderr += d })
  rt.stdout.resume()
  const exited = new Promise((resolve) => rt.once('exit', (code, signal) => resolve({ code, signal })))
  t.after(() => { try { rt.kill('SIGKILL') } catch {} })
  await waitFor(async () => (await httpGet(probePort, '/readyz')).status === 200, { timeout: 20000, message: 'ready' })
  rt.kill('SIGTERM')
  await waitFor(async () => (await httpGet(probePort, '/readyz')).status === 503, { timeout: 5000, message: '/readyz fails after SIGTERM' })
  assert.match(stderr, /"event":"drain-delay"/)
  assert.equal((await httpGet(port)).status, 200, 'a new connection is still served during the delay')
  assert.equal((await exited).code, 0, stderr)
  assert.match(stderr, /"event":"shutdown"/)

  const bad = spawn(process.execPath, [RUNTIME, fixture('idle-http.js'), '--drain-delay', 'soon'], { cwd: dir, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let badErr = ''
  bad.stderr.on('data', (d) => { badErr += d })
  const badExit = await new Promise((resolve) => bad.once('exit', resolve))
  assert.notEqual(badExit, 0)
  assert.match(badErr, /--drain-delay/)
})

// Whoever asks again during the delay wants the stop now: a second SIGTERM to the runtime, or
// `xpm kill` after the daemon's SIGTERM, ends the delay (before: both waited all of it).
test('a second SIGTERM, or xpm kill, during the drain delay ends the delay', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const probePort = await freePort()
  const rt = spawn(process.execPath, [RUNTIME, fixture('idle-http.js'), '--name', 'api', '--drain-delay', '60s', '--metrics-address', String(probePort)], { cwd: dir, env: { ...h.env, PORT: String(await freePort()) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  rt.stderr.on('data', (d) => { stderr += d })
  rt.stdout.resume()
  const exited = new Promise((resolve) => rt.once('exit', (code) => resolve(code)))
  t.after(() => { try { rt.kill('SIGKILL') } catch {} })
  await waitFor(async () => (await httpGet(probePort, '/readyz')).status === 200, { timeout: 20000, message: 'ready' })
  rt.kill('SIGTERM')
  await waitFor(() => /"event":"drain-delay"/.test(stderr), { timeout: 10000, message: 'the delay begins' })
  const began = Date.now()
  rt.kill('SIGTERM')
  assert.equal(await exited, 0, stderr)
  assert.ok(Date.now() - began < 15000, `the runtime took ${Date.now() - began} ms after the second SIGTERM`)

  const port = await freePort()
  const started = await h.run(['start', fixture('idle-http.js'), '--name', 'web'], { env: { PORT: String(port), XPM_DRAIN_DELAY: '60s' } })
  assert.equal(started.code, 0, started.stderr)
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGTERM')
  const log = path.join(h.home, 'daemon.log')
  await waitFor(() => /drain-delay/.test(fs.readFileSync(log, 'utf8')), { timeout: 10000, message: 'the daemon\'s delay begins' })
  const killed = Date.now()
  const res = await h.run(['kill'], { timeout: 70000 })
  assert.equal(res.code, 0, res.stderr)
  assert.ok(Date.now() - killed < 15000, `xpm kill took ${Date.now() - killed} ms`)
})
