'use strict'

// xpm-runtime as a container runs it: in its own PID namespace (`unshare --pid --fork
// --mount-proc`, PID 1 there), with --metrics-address. /readyz fails until the apps are ready,
// then passes; after SIGTERM it fails while the apps drain (/livez keeps answering); the runtime
// then exits 0. /metrics answers on the same port.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, freePort, httpGet, ROOT } = require('../helpers/xpm')
const { childrenOf } = require('../helpers/procs')

const RUNTIME = path.join(ROOT, 'bin', 'xpm-runtime')

// Listens LISTEN_DELAY_MS after boot, then says it is ready (wait_ready); a graceful stop
// (disconnect or SIGINT) closes the server and exits DRAIN_MS later: the drain /readyz must not
// call ready.
const SLOW_APP = `
const http = require('node:http')
const cluster = require('node:cluster')
let server = null
setTimeout(() => {
  server = http.createServer((req, res) => res.end('ok ' + process.pid)).listen(Number(process.env.PORT), () => process.send('ready'))
}, Number(process.env.LISTEN_DELAY_MS))
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  console.log('draining ' + process.pid)
  server?.close()
  setTimeout(() => process.exit(0), Number(process.env.DRAIN_MS))
}
process.on('SIGINT', stop)
if (cluster.isWorker) cluster.worker.on('disconnect', stop)
`

// A PID namespace as root, or through a user namespace.
const ns = require('../helpers/pid-namespace').pidNamespace({ withUserNamespace: true })

test('xpm-runtime in a PID namespace: /readyz fails until the apps are ready, passes, fails again after SIGTERM while they drain', { skip: ns.skip }, async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const [appPort, probePort] = [await freePort(), await freePort()]
  fs.writeFileSync(path.join(dir, 'slow.js'), SLOW_APP)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'web', script: './slow.js', instances: 2, wait_ready: true, kill_timeout: 5000, env: { PORT: '${appPort}', LISTEN_DELAY_MS: '1500', DRAIN_MS: '1500' } }
  ] }`)
  const child = spawn('unshare', [...ns.args, process.execPath, RUNTIME, 'ecosystem.config.js', '--metrics-address', `127.0.0.1:${probePort}`],
    { cwd: dir, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => { out.stdout += d })
  child.stderr.on('data', (d) => { out.stderr += d })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  // the namespace's PID 1 (the runtime, or the init it put in front of itself), seen from here
  const init = await waitFor(() => childrenOf(child.pid)[0], { timeout: 5000, message: 'the runtime under unshare' })
  t.after(() => { try { process.kill(init, 'SIGKILL') } catch {} }) // ends everything in the namespace

  // until the workers listen: /readyz 503 (or not listening yet at all), never 200
  const seen = []
  let ready = null
  await waitFor(async () => {
    const r = await httpGet(probePort, '/readyz').catch((err) => ({ status: err.code }))
    seen.push(r.status)
    if (r.status !== 200) return false
    ready = r
    return true
  }, { timeout: 20000, interval: 50, message: `/readyz 200; seen ${seen.join(' ')}\n${out.stderr}` })
  assert.ok(seen.includes(503), `/readyz failed before the apps were ready: ${seen.join(' ')}`)
  assert.equal(ready.body, 'ready\n')
  assert.equal((await httpGet(appPort, '/')).status, 200, 'ready means the app answers')
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => p.status), ['online', 'online'])
  assert.equal((await httpGet(probePort, '/livez')).status, 200)
  const metrics = await httpGet(probePort, '/metrics')
  assert.match(metrics.body, /^xpm_process_ready\{app="web",id="0",instance="0"\} 1$/m)

  // SIGTERM (to PID 1 of the namespace, as the container runtime sends it): the apps drain for
  // 1.5 s; /readyz says so meanwhile, /livez still answers
  process.kill(init, 'SIGTERM')
  const draining = await waitFor(async () => {
    const r = await httpGet(probePort, '/readyz').catch(() => null)
    return r && r.status === 503 && r
  }, { timeout: 5000, interval: 20, message: '/readyz 503 after SIGTERM' })
  assert.match(draining.body, /shutting down/)
  assert.equal((await httpGet(probePort, '/livez')).status, 200, 'alive while draining')
  await waitFor(() => (out.stdout.match(/draining/g) || []).length === 2, { timeout: 5000, message: 'both workers draining' })
  assert.equal((await httpGet(probePort, '/readyz')).status, 503, 'still not ready while the workers drain')
  const exit = await exited
  assert.equal(exit.code, 0, out.stderr)
  await assert.rejects(httpGet(probePort, '/livez', { timeout: 1000 }), 'the endpoint is gone with the runtime')
})

test('xpm-runtime: a --metrics-address that cannot be listened on fails the container before any app starts', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'app.js'), 'setInterval(() => {}, 1000); console.log("started")')
  const run = (args) => new Promise((resolve) => {
    const child = spawn(process.execPath, [RUNTIME, 'app.js', ...args], { cwd: dir, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    t.after(() => { try { child.kill('SIGKILL') } catch {} })
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
  const taken = require('node:net').createServer()
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.after(() => taken.close())
  const busy = await run(['--metrics-address', `127.0.0.1:${taken.address().port}`])
  assert.equal(busy.code, 1)
  assert.match(busy.stderr, /the metrics endpoint cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE \[XPM_ERR_METRICS_LISTEN\]/)
  assert.doesNotMatch(busy.stdout, /started/)
  const bad = await run(['--metrics-address', 'nope:port'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--metrics-address="nope:port": the port must be a number/)
})
