#!/usr/bin/env node
'use strict'

// node bench/otel.js [--rounds 3] [--seconds 5] [--warmup 5] [--connections 50] [--app hello|json|cpu] [--start-vs <checkout>]
// What `otel` costs (issue 36). --start-vs: the daemon's start time (a fresh home, `xpm ping`
// until it answers, then `xpm kill`), this checkout against another one (say a `git archive` of
// the commit before, with a node_modules), alternating, ROUNDS × 3 each; nothing else is run.
// (The daemon's memory with otel off: bench/daemon-rss.js --xpm otel=.,base=<checkout>.)
// --daemon-cpu N: the daemon's CPU over 60 s with N idle apps, otel off, then with every app's
// metrics exported every 10 s (traces and logs off: the daemon's own cost).
// Without it: the hello app, 2 cluster workers, under load with otel off
// and with otel on (traces from the SDK in the app, metrics and logs from the daemon), sent to a
// local OTLP sink that answers 200 at once, so the figure is the app's own cost, not a
// collector's. Rounds alternate off and on in fresh daemons. Prints medians and the ratio, and
// the workers' CPU time per request (all their threads), which a machine shared with other work
// moves much less than req/s; the figures go in docs/benchmarks.md by hand. Not part of
// `npm run bench`. Apps: hello (an empty handler), json (a setImmediate and ~1 KB of JSON made
// per request), cpu (1,000 SHA-256 per request).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { performance } = require('node:perf_hooks')
const { benchEnv, runOk, freePort, httpGet, waitFor, kill, isAlive, cpuMs, rss } = require('./lib/util')
const { ensureTools } = require('./lib/tools')
const { loadRun } = require('./lib/loadgen')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : Number(args[i + 1]) }
const ROUNDS = opt('--rounds', 3)
const SECONDS = opt('--seconds', 5)
// the SDK's code is large: a worker needs thousands of requests before V8 has optimized it
const WARMUP = opt('--warmup', 5)
const CONNECTIONS = opt('--connections', 50)
const XPM = path.join(__dirname, '..', 'bin', 'xpm')
const APP_NAME = args.includes('--app') ? args[args.indexOf('--app') + 1] : 'hello'
const HELLO = path.join(__dirname, 'apps', `${APP_NAME}.js`)

function startSink () {
  const counts = { traces: 0, metrics: 0, logs: 0 }
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const signal = req.url.split('/').pop()
      if (signal in counts) counts[signal]++
      res.writeHead(200, { 'content-type': req.headers['content-type'] || 'application/x-protobuf' }).end()
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, counts, close: () => server.close() })))
}

async function one (tools, sink, otel) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-otel-'))
  const env = benchEnv({ XPM_HOME: home, FORCE_COLOR: '0' })
  const port = await freePort()
  const file = path.join(home, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps: [{ name: 'hello', script: HELLO, instances: 2, env: { PORT: String(port) }, ...(otel ? { otel: { endpoint: sink.url } } : {}) }] })}\n`)
  try {
    await runOk(process.execPath, [XPM, 'start', file], { env, cwd: home, timeout: 120000 })
    await waitFor(() => httpGet(port).then(() => true, () => false), { timeout: 30000 })
    await loadRun(tools, port, { seconds: WARMUP, connections: CONNECTIONS })
    const pids = JSON.parse((await runOk(process.execPath, [XPM, 'jlist'], { env, cwd: home })).stdout).map((p) => p.pid)
    const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0)
    const before = cpu()
    const res = await loadRun(tools, port, { seconds: SECONDS, connections: CONNECTIONS })
    return { ...res, usPerReq: (cpu() - before) * 1000 / res.requests, load: os.loadavg()[0] }
  } finally {
    const pid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'))
    await runOk(process.execPath, [XPM, 'kill'], { env, cwd: home, timeout: 60000 }).catch(() => kill(pid))
    await waitFor(() => !isAlive(pid), { timeout: 20000 }).catch(() => kill(pid))
    fs.rmSync(home, { recursive: true, force: true })
  }
}

async function startTime (root) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-otel-start-'))
  const env = benchEnv({ XPM_HOME: home, FORCE_COLOR: '0' })
  const bin = path.join(root, 'bin', 'xpm')
  const t0 = performance.now()
  await runOk(process.execPath, [bin, 'ping'], { env, cwd: home, timeout: 60000 })
  const ms = performance.now() - t0
  const pid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'))
  await runOk(process.execPath, [bin, 'kill'], { env, cwd: home, timeout: 60000 }).catch(() => kill(pid))
  await waitFor(() => !isAlive(pid), { timeout: 20000 }).catch(() => kill(pid))
  fs.rmSync(home, { recursive: true, force: true })
  return ms
}

const IDLE_APP = "'use strict'\nsetInterval(() => {}, 1e9)\n"

async function daemonCpu (count, sink, otel) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-otel-cpu-'))
  const env = benchEnv({ XPM_HOME: home, FORCE_COLOR: '0' })
  fs.writeFileSync(path.join(home, 'idle.js'), IDLE_APP)
  const apps = Array.from({ length: count }, (_, i) => ({
    name: `idle-${i}`,
    script: path.join(home, 'idle.js'),
    env: { OTEL_METRIC_EXPORT_INTERVAL: '10000' },
    ...(otel ? { otel: { endpoint: sink.url, traces: false, logs: false } } : {})
  }))
  fs.writeFileSync(path.join(home, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({ apps })}\n`)
  const cli = (...a) => runOk(process.execPath, [XPM, ...a], { env, cwd: home, timeout: 300000 })
  try {
    await cli('start', 'ecosystem.config.js')
    const pid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'))
    await new Promise((resolve) => setTimeout(resolve, 15000)) // start-up settles
    const before = cpuMs(pid) / 1000
    const exportsBefore = sink.counts.metrics
    await new Promise((resolve) => setTimeout(resolve, 60000))
    return { cpu: cpuMs(pid) / 1000 - before, rss: rss(pid), exports: sink.counts.metrics - exportsBefore }
  } finally {
    await cli('kill').catch(() => {})
    fs.rmSync(home, { recursive: true, force: true })
  }
}

async function compareStart (other) {
  const times = { this: [], other: [] }
  for (let r = 0; r < ROUNDS * 3; r++) {
    for (const who of r % 2 ? ['other', 'this'] : ['this', 'other']) times[who].push(await startTime(who === 'this' ? path.join(__dirname, '..') : path.resolve(other)))
  }
  console.log(`daemon start (xpm ping from a fresh home), median ms: this ${median(times.this).toFixed(0)}, ${other} ${median(times.other).toFixed(0)}`)
  console.log(`  this:  ${times.this.map((t) => t.toFixed(0)).join(' ')}\n  other: ${times.other.map((t) => t.toFixed(0)).join(' ')}`)
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]

async function main () {
  const i = args.indexOf('--start-vs')
  if (i !== -1) return compareStart(args[i + 1])
  const j = args.indexOf('--daemon-cpu')
  if (j !== -1) {
    const sink = await startSink()
    for (const otel of [false, true]) {
      const r = await daemonCpu(Number(args[j + 1]), sink, otel)
      console.log(`${args[j + 1]} apps, otel ${otel ? 'metrics every 10 s' : 'off'}: daemon CPU ${(r.cpu / 60 * 100).toFixed(2)} % of a core over 60 s, RSS ${(r.rss / 1048576).toFixed(1)} MB, ${r.exports} OTLP metrics requests`)
    }
    return sink.close()
  }
  const tools = await ensureTools()
  const sink = await startSink()
  const rows = { off: [], on: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of r % 2 ? ['on', 'off'] : ['off', 'on']) {
      const res = await one(tools, sink, mode === 'on')
      rows[mode].push(res)
      console.log(`round ${r + 1} otel ${mode}: ${Math.round(res.rps)} req/s, ${res.usPerReq.toFixed(1)} µs CPU/request, p99 ${res.p99} ms, ${res.errors} errors, load ${res.load.toFixed(1)}`)
    }
  }
  sink.close()
  const off = median(rows.off.map((x) => x.rps))
  const on = median(rows.on.map((x) => x.rps))
  console.log(`\nmedian req/s: off ${Math.round(off)}, on ${Math.round(on)}, on/off ${(on / off).toFixed(2)}×`)
  console.log(`median p99 ms: off ${median(rows.off.map((x) => x.p99))}, on ${median(rows.on.map((x) => x.p99))}`)
  const cpuOff = median(rows.off.map((x) => x.usPerReq))
  const cpuOn = median(rows.on.map((x) => x.usPerReq))
  console.log(`median worker CPU per request: off ${cpuOff.toFixed(1)} µs, on ${cpuOn.toFixed(1)} µs (off/on ${(cpuOff / cpuOn).toFixed(2)}×: the throughput ratio of a CPU-bound app)`)
  console.log(`OTLP requests received: ${JSON.stringify(sink.counts)}`)
}

main().catch((err) => { console.error(err); process.exit(1) })
