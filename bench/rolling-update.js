#!/usr/bin/env node
'use strict'

// node bench/rolling-update.js [--xpm name=/checkout,...] [--no-pm2] [--runs 3] [--keep-alive 50] [--fresh 8]
// Issue 34, part 1: a rolling update of two replicas behind a readiness-aware load balancer, the
// way Kubernetes replaces pods. Each replica is a runtime in the foreground (`xpm-runtime` with
// `--metrics-address`, or `pm2-runtime`) running bench/apps/hello.js with 2 cluster workers in a
// private home. The balancer (below, in this process) polls each replica's readiness every 100 ms
// (xpm: /readyz; pm2-runtime has none: a GET of the app's port), routes round-robin to the ready
// ones over keep-alive upstream connections, and retries another replica only when a connection
// is refused (nothing was sent: what nginx and Envoy do for any method). The update: a new replica
// starts and becomes ready, then the old one gets SIGTERM (its readiness and the signal race, as
// an endpoint removal and SIGTERM do), twice. Clients: `--keep-alive` loops on keep-alive
// connections and `--fresh` loops opening a connection per request, for the whole update. Every
// answer other than 200 is a lost request, by cause. Then, per contender and run, one replica
// with 25 keep-alive clients that stay idle gets SIGTERM: how long it takes to exit (kill_timeout
// is 5 s for xpm, 1.6 s for PM2) and how many of those clients saw a reset rather than a clean
// close. Rounds alternate the contenders.
// NODE_EXTRA_CA_CERTS is unset for every contender (bench/lib/util.js). Not part of `npm run bench`.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { spawn } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { benchEnv, waitFor, freePort, delay } = require('./lib/util')
const { DEFAULT_DIR: TOOLS } = require('./lib/tools')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const RUNS = Number(opt('--runs', 3))
const KEEP_ALIVE = Number(opt('--keep-alive', 50))
const FRESH = Number(opt('--fresh', 8))
const APP = path.join(__dirname, 'apps', 'hello.js')
const XPMS = opt('--xpm', `xpm=${path.join(__dirname, '..')}`).split(',').map((s) => s.split('='))
const PM2_RUNTIME = path.join(TOOLS, 'node_modules', 'pm2', 'bin', 'pm2-runtime')

const CONTENDERS = XPMS.map(([name, root]) => ({
  name,
  start: (home, port, probe) => spawn(process.execPath, [path.join(path.resolve(root), 'bin', 'xpm-runtime'), APP, '-i', '2', '--name', 'hello', '--metrics-address', String(probe)], { env: benchEnv({ XPM_HOME: home, PORT: String(port) }), stdio: 'ignore' }),
  readyPath: (port, probe) => ({ port: probe, path: '/readyz' })
}))
if (!args.includes('--no-pm2') && fs.existsSync(PM2_RUNTIME)) {
  CONTENDERS.push({
    name: 'pm2-runtime',
    start: (home, port) => spawn(process.execPath, [PM2_RUNTIME, 'start', APP, '-i', '2', '--name', 'hello'], { env: benchEnv({ PM2_HOME: home, PORT: String(port) }), stdio: 'ignore' }),
    readyPath: (port) => ({ port, path: '/' })
  })
}

function get (options) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', timeout: 1000, agent: false, ...options }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
  })
}

// The readiness-aware balancer: replicas join with add() and leave when their process exits.
function balancer () {
  const replicas = []
  const upstream = new http.Agent({ keepAlive: true, maxSockets: 256 })
  let next = 0
  const poll = setInterval(() => {
    for (const r of replicas) get(r.ready).then((status) => { r.isReady = status === 200 })
  }, 100)
  const pick = (except) => {
    const ready = replicas.filter((r) => r.isReady && r !== except)
    return ready.length ? ready[next++ % ready.length] : null
  }
  const forward = (req, res, replica, retried) => {
    const up = http.request({ host: '127.0.0.1', port: replica.port, path: req.url, method: req.method, headers: req.headers, agent: upstream }, (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers)
      upRes.pipe(res)
      upRes.on('error', () => res.destroy())
    })
    up.on('error', (err) => {
      const other = !retried && err.code === 'ECONNREFUSED' && pick(replica)
      if (other) return forward(req, res, other, true)
      if (res.headersSent) return res.destroy()
      res.writeHead(502, { 'x-lb-error': err.code || err.message }).end()
    })
    up.end()
  }
  const server = http.createServer((req, res) => {
    const replica = pick(null)
    if (!replica) return res.writeHead(503, { 'x-lb-error': 'no ready replica' }).end()
    forward(req, res, replica, false)
  })
  return {
    server,
    add (replica) { replicas.push(replica) },
    remove (replica) { replicas.splice(replicas.indexOf(replica), 1) },
    readyCount: () => replicas.filter((r) => r.isReady).length,
    close () { clearInterval(poll); upstream.destroy(); server.closeAllConnections?.(); server.close() }
  }
}

function load (port, { keepAlive, loops }) {
  const agent = new http.Agent({ keepAlive, maxSockets: loops })
  const stats = { ok: 0, lost: 0, causes: {} }
  const state = { running: true }
  const once = () => new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume()
      res.on('end', () => {
        if (res.statusCode === 200) stats.ok++
        else count(`${res.statusCode} ${res.headers['x-lb-error'] ?? ''}`.trim())
        resolve()
      })
    })
    req.setTimeout(10000, () => req.destroy(new Error('timeout')))
    req.on('error', (err) => { count(err.code || err.message); resolve() })
  })
  const count = (cause) => { stats.lost++; stats.causes[cause] = (stats.causes[cause] || 0) + 1 }
  const running$ = Array.from({ length: loops }, async () => { while (state.running) await once() })
  return { stats, async stop () { state.running = false; await Promise.all(running$); agent.destroy(); return stats } }
}

async function replica (c, lb, dir) {
  const home = fs.mkdtempSync(path.join(dir, `${c.name}-`))
  const [port, probe] = [await freePort(), await freePort()]
  const child = c.start(home, port, probe)
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  const r = { port, ready: c.readyPath(port, probe), isReady: false, child, exited }
  lb.add(r)
  await waitFor(() => r.isReady, { timeout: 60000, message: `${c.name} replica ready` })
  return r
}

async function retire (lb, r) {
  r.child.kill('SIGTERM')
  const exit = await Promise.race([r.exited, delay(60000).then(() => ({ code: 'still running after 60 s' }))])
  lb.remove(r)
  if (exit.code === 'still running after 60 s') r.child.kill('SIGKILL')
  return exit
}

async function rollingUpdate (c, dir) {
  const lb = balancer()
  await new Promise((resolve) => lb.server.listen(0, '127.0.0.1', resolve))
  const lbPort = lb.server.address().port
  const live = [await replica(c, lb, dir), await replica(c, lb, dir)]
  const kept = load(lbPort, { keepAlive: true, loops: KEEP_ALIVE })
  const fresh = load(lbPort, { keepAlive: false, loops: FRESH })
  const exits = []
  try {
    await delay(1000)
    for (let i = 0; i < 2; i++) {
      const added = await replica(c, lb, dir)
      exits.push(await retire(lb, live.shift()))
      live.push(added)
      await delay(500)
    }
    await delay(1000)
  } finally {
    const results = { keepAlive: await kept.stop(), fresh: await fresh.stop(), exits }
    for (const r of live) await retire(lb, r)
    lb.close()
    return results // eslint-disable-line no-unsafe-finally
  }
}

async function idleStop (c, dir) {
  const lb = balancer() // only for its readiness polling
  const r = await replica(c, lb, dir)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 25 })
  const sockets = await Promise.all(Array.from({ length: 25 }, () => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: r.port, agent }, (res) => { const socket = res.socket; res.resume(); res.on('end', () => resolve(socket)) }).on('error', reject)
  })))
  const resets = sockets.map((s) => new Promise((resolve) => { s.once('error', () => resolve(1)); s.once('close', () => resolve(0)) }))
  const sent = performance.now()
  const exit = await retire(lb, r)
  const ms = Math.round(performance.now() - sent)
  lb.close()
  agent.destroy()
  return { ms, exit: exit.signal ?? exit.code, resets: (await Promise.all(resets)).reduce((a, b) => a + b, 0) }
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-rolling-'))
  const rows = []
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const c of CONTENDERS) {
        const r = await rollingUpdate(c, dir)
        r.idle = await idleStop(c, dir)
        rows.push({ contender: c.name, run, ...r })
        const fmt = (s) => `${s.ok} ok, ${s.lost} lost${s.lost ? ` ${JSON.stringify(s.causes)}` : ''}`
        console.log(`${c.name} run ${run}: keep-alive ${fmt(r.keepAlive)}; new connections ${fmt(r.fresh)}; old replicas exited ${r.exits.map((e) => e.signal ?? e.code).join(', ')}; idle clients: SIGTERM → exit ${r.idle.exit} in ${r.idle.ms} ms, ${r.idle.resets} reset`)
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  console.log('\n| contender | run | keep-alive: answered / lost | new connections: answered / lost | 25 idle clients: SIGTERM to exit, resets |\n|---|---|---|---|---|')
  for (const r of rows) console.log(`| ${r.contender} | ${r.run} | ${r.keepAlive.ok} / ${r.keepAlive.lost} | ${r.fresh.ok} / ${r.fresh.lost} | ${r.idle.ms} ms (exit ${r.idle.exit}), ${r.idle.resets} |`)
}

main().catch((err) => { console.error(err); process.exit(1) })
