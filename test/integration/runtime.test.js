'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { createHome, waitFor, freePort, httpGet, ROOT } = require('../helpers/xpm')

const RUNTIME = path.join(ROOT, 'bin', 'xpm-runtime')

// Says when it gets its graceful stop: the stop signal (fork mode) or the primary's
// disconnect (cluster mode), then closes its server and exits 0.
const GRACEFUL_APP = `
const http = require('node:http')
const cluster = require('node:cluster')
const server = http.createServer((req, res) => res.end(String(process.pid)))
server.listen(Number(process.env.PORT || 0), () => console.log('listening ' + process.pid))
const stop = (why) => { console.log('graceful stop (' + why + ') ' + process.pid); server.close(() => process.exit(0)) }
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
if (cluster.isWorker) cluster.worker.on('disconnect', () => stop('disconnect'))
`

function startRuntime (h, args, cwd) {
  const child = spawn(process.execPath, [RUNTIME, ...args], { cwd, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => { out.stdout += d })
  child.stderr.on('data', (d) => { out.stderr += d })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })))
  return { child, out, exited }
}

test('xpm-runtime: apps in the foreground, logs on stdout with a prefix and no files, SIGTERM → graceful stop of each app, exit 0 within kill_timeout', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const [p1, p2] = [await freePort(), await freePort()]
  fs.writeFileSync(path.join(dir, 'graceful.js'), GRACEFUL_APP)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'web', script: './graceful.js', instances: 2, env: { PORT: '${p1}' }, kill_timeout: 3000 },
    { name: 'worker', script: './graceful.js', env: { PORT: '${p2}' }, kill_timeout: 3000 }
  ] }`)
  const rt = startRuntime(h, ['ecosystem.config.js'], dir)
  t.after(() => { try { rt.child.kill('SIGKILL') } catch {} })
  await waitFor(() => (rt.out.stdout.match(/listening/g) || []).length === 3, { timeout: 15000, message: `three apps listening; got ${JSON.stringify(rt.out)}` })
  assert.match(rt.out.stdout, /^web\[0\]\| listening \d+$/m)
  assert.match(rt.out.stdout, /^web\[1\]\| listening \d+$/m)
  assert.match(rt.out.stdout, /^worker\[0\]\| listening \d+$/m)
  assert.equal((await httpGet(p1)).status, 200)
  assert.equal((await httpGet(p2)).status, 200)

  // the socket is there: the CLI works inside the container (a fork app is online once it has
  // run for its settle time, a little after it printed)
  let list
  await waitFor(async () => (list = await h.jlist()).every((p) => p.status === 'online'), { timeout: 10000, message: 'all online' })
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['web', 'online'], ['web', 'online'], ['worker', 'online']])
  assert.deepEqual(fs.readdirSync(path.join(h.home, 'logs')), [], 'no log files by default')
  assert.equal(fs.existsSync(path.join(h.home, 'state.json')), false, 'nothing to recover in a container')

  const sent = performance.now()
  rt.child.kill('SIGTERM')
  const exit = await rt.exited
  assert.equal(exit.code, 0, rt.out.stderr)
  assert.ok(exit.at - sent < 3000, `exited within kill_timeout (${Math.round(exit.at - sent)} ms)`)
  for (const p of list) assert.match(rt.out.stdout, new RegExp(`^${p.name}\\[${p.instance}\\]\\| graceful stop \\(\\w+\\) ${p.pid}$`, 'm'))
  assert.match(rt.out.stderr, /"event":"shutdown"/)
})

test('xpm-runtime exits with the apps\' status when they end on their own, and non-zero when one must be killed', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'fail.js'), 'console.error("giving up"); setTimeout(() => process.exit(3), 50)')
  const failing = startRuntime(h, ['fail.js', '--no-autorestart'], dir)
  const exit = await failing.exited
  assert.equal(exit.code, 3, failing.out.stderr)
  assert.match(failing.out.stderr, /^fail\[0\]\| giving up$/m)

  fs.writeFileSync(path.join(dir, 'stubborn.js'), 'process.on("SIGINT", () => console.log("ignoring SIGINT")); setInterval(() => {}, 1000); console.log("up")')
  const stubborn = startRuntime(h, ['stubborn.js', '--kill-timeout', '300'], dir)
  t.after(() => { try { stubborn.child.kill('SIGKILL') } catch {} })
  await waitFor(() => /up/.test(stubborn.out.stdout), { timeout: 10000, message: 'the app to start' })
  stubborn.child.kill('SIGTERM')
  const killed = await stubborn.exited
  assert.equal(killed.code, 137, 'an app that had to be SIGKILLed is not a graceful stop')
  assert.match(stubborn.out.stdout, /ignoring SIGINT/)
})
