'use strict'

// The drain before an app's stop signal, as the app's own code meets it (issue 34, part 1,
// review): in fork mode the drain stops the servers accepting before the signal, yet the app's
// signal handler still closes its server as it always did; a connection the drain cannot end
// (an upgraded one: a WebSocket) does not hold the signal back; nor does a process whose event
// loop is blocked, which cannot drain at all.
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const net = require('node:net')
const { createHome, waitFor, freePort, fixture, httpGet } = require('../helpers/xpm')

async function startApp (t, h, script, killTimeout, args = []) {
  const port = await freePort()
  const started = await h.run(['start', fixture(script), '--name', 'app', '--kill-timeout', String(killTimeout), ...args], { env: { PORT: String(port) } })
  assert.equal(started.code, 0, started.stderr)
  await waitFor(async () => (await httpGet(port).catch(() => ({}))).status === 200, { timeout: 15000, message: 'the app answers' })
  return port
}

// How the app's process ended, as `xpm why` tells it: { code, signal, cause }.
async function lastExit (h) {
  const res = await h.run(['why', 'app', '--json'])
  assert.equal(res.code, 0, res.stderr)
  return JSON.parse(res.stdout).filter((e) => e.event === 'exit').at(-1)
}

// An app that exits 1 when server.close() calls back with an error used to get
// ERR_SERVER_NOT_RUNNING (the drain, or cluster's disconnect, had closed the server already) and
// a second 'close' event.
for (const [mode, args] of [['fork', []], ['cluster', ['-i', '1']]]) {
  test(`${mode} mode: the app's own server.close() in its signal handler succeeds after the drain`, async (t) => {
    const h = createHome(t)
    const port = await startApp(t, h, 'close-callback-http.js', 8000, args)
    const agent = new http.Agent({ keepAlive: true }) // an idle keep-alive client through the stop
    t.after(() => agent.destroy())
    await new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port, agent }, (r) => { r.resume(); r.on('end', resolve) }).on('error', reject))
    const res = await h.run(['stop', 'app'])
    assert.equal(res.code, 0, res.stderr)
    const logs = (await h.run(['logs', 'app', '--lines', '20', '--nostream'])).stdout
    assert.match(logs, /closed \d+ ok/, logs)
    assert.equal(logs.match(/close event/g)?.length, 1, `one 'close' event: ${logs}`)
    const exit = await lastExit(h)
    assert.deepEqual([exit.code, exit.signal, exit.cause.detail], [0, null, 'stop'])
  })
}

// Before: in fork mode the signal waited for half of kill_timeout (10 s here) while the server
// refused every new connection; in cluster mode the stop waited all of kill_timeout for the
// worker's disconnect, then sent SIGKILL at once: the app's own handler never ran.
for (const [mode, args] of [['fork', []], ['cluster', ['-i', '1']]]) {
  test(`${mode} mode: an upgraded connection held open does not hold the stop signal back`, async (t) => {
    const h = createHome(t)
    const port = await startApp(t, h, 'upgrade-http.js', 20000, args)
    const socket = net.connect(port, '127.0.0.1')
    t.after(() => socket.destroy())
    socket.on('error', () => {})
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n')
    await new Promise((resolve) => socket.once('data', resolve))
    let received = ''
    socket.on('data', (d) => { received += d })
    const ended = new Promise((resolve) => socket.once('close', resolve))
    const began = Date.now()
    const res = await h.run(['stop', 'app'], { timeout: 30000 })
    const took = Date.now() - began
    assert.equal(res.code, 0, res.stderr)
    assert.ok(took < 6000, `the stop took ${took} ms`)
    await ended
    assert.match(received, /bye/, 'the app\'s own handler said goodbye')
    const exit = await lastExit(h)
    assert.deepEqual([exit.code, exit.signal, exit.cause.detail], [0, null, 'stop'])
  })
}

// Before: the signal to a hung app waited for a drain that could never happen, half of
// kill_timeout in fork mode (10 s here) and all of it in cluster mode (20 s).
for (const [mode, args] of [['fork', []], ['cluster', ['-i', '1']]]) {
  test(`${mode} mode: the restart of an app whose event loop is blocked does not wait for its drain`, async (t) => {
    const h = createHome(t)
    const port = await startApp(t, h, 'hang-on-request.js', 20000, args)
    httpGet(port, '/hang', { timeout: 30000 }).catch(() => {})
    const old = (await h.jlist())[0].pid
    await waitFor(async () => (await httpGet(port, '/', { timeout: 300 }).catch(() => ({}))).status !== 200, { timeout: 5000, message: 'the app hangs' })
    const began = Date.now()
    const res = await h.run(['restart', 'app'], { timeout: 40000 })
    const took = Date.now() - began
    assert.equal(res.code, 0, res.stderr)
    assert.ok(took < 7000, `the restart took ${took} ms`)
    const exit = await lastExit(h)
    assert.deepEqual([exit.pid, exit.signal, exit.cause.detail], [old, 'SIGINT', 'restart'])
  })
}

// Before: the drain required node:http and node:https in every process it drained, ~5 ms of CPU
// each, whether the app served HTTP or not: `delete all` of 1,000 idle processes paid it 1,000
// times on two cores. The stop still drains (the app's handler runs after it); nothing is loaded.
for (const [mode, args] of [['fork', []], ['cluster', ['-i', '1']]]) {
  test(`${mode} mode: the drain of a process that serves no HTTP loads no HTTP module into it`, async (t) => {
    const h = createHome(t)
    const started = await h.run(['start', fixture('reports-loaded-http.js'), '--name', 'app', ...args])
    assert.equal(started.code, 0, started.stderr)
    const res = await h.run(['stop', 'app'])
    assert.equal(res.code, 0, res.stderr)
    const logs = (await h.run(['logs', 'app', '--lines', '20', '--nostream'])).stdout
    assert.match(logs, /loaded at start: \[\]/, logs)
    assert.match(logs, /loaded at stop: \[\]/, logs)
  })
}
