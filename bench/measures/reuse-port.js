#!/usr/bin/env node
'use strict'

// Cluster throughput with the daemon off the data path (reuse_port) or on it (round-robin), side
// by side in one run, 2 workers of bench/apps/hello.js each:
//   xpm round-robin      the default: the daemon accepts every connection and hands it over
//   xpm reuse_port       each worker listens itself with SO_REUSEPORT (docs/reload.md#reuse_port)
//   PM2 cluster          round-robin in PM2's daemon
//   node:cluster         a bare node:cluster primary (round-robin), no manager
//   floor                two plain `node` processes listening with reusePort (hello-reuse-port.js)
// Two loads with wrk (one thread, 50 connections): a new connection per request
// (`Connection: close`, every accept goes through a round-robin primary) and keep-alive (the
// primary is not involved once connected). Runs alternate between contenders, the median is
// kept. Then a new-connection run while the daemon is SIGSTOPped, for the two xpm modes.
//
//   node bench/measures/reuse-port.js [--rounds 3] [--seconds 5]
//
// Run it with Node >= 22.12 (the daemons, PM2's included, run the Node of their CLI, which is
// this one). PM2 is installed on demand into /tmp/reuse/pm2 (XPM_BENCH_PM2_DIR), never into the
// repo. Every process runs without NODE_EXTRA_CA_CERTS (bench/lib/util.js). Writes
// bench/results/reuse-port.json and prints a Markdown table for bench/findings.md.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Xpm } = require('../lib/xpm')
const { Pm2 } = require('../lib/pm2')
const { Raw } = require('../lib/raw')
const { HELLO, waitHttp } = require('../lib/apps')
const { run, runOk, freePort, benchEnv } = require('../lib/util')
const { parseWrk } = require('../lib/loadgen')
const { nodeHasReusePort } = require('../../lib/agent/reuse-port')

const HELLO_REUSE_PORT = path.join(__dirname, '..', 'apps', 'hello-reuse-port.js')
const PM2_DIR = process.env.XPM_BENCH_PM2_DIR || path.join(os.tmpdir(), 'reuse', 'pm2')
const RESULTS = path.join(__dirname, '..', 'results', 'reuse-port.json')

function args (argv) {
  const opts = { rounds: 3, seconds: 5 }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') opts.rounds = Number(argv[++i])
    else if (argv[i] === '--seconds') opts.seconds = Number(argv[++i])
    else throw new Error(`unknown option ${argv[i]}`)
  }
  return opts
}

async function ensurePm2 (log) {
  if (!fs.existsSync(path.join(PM2_DIR, 'node_modules', 'pm2', 'package.json'))) {
    log(`installing pm2 into ${PM2_DIR}`)
    fs.mkdirSync(PM2_DIR, { recursive: true })
    await runOk('npm', ['install', '--prefix', PM2_DIR, 'pm2@latest', '--no-audit', '--no-fund', '--no-save'], { env: process.env, timeout: 300000 })
  }
  return PM2_DIR
}

async function wrk (port, { seconds, close = false, timeout = '5s' }) {
  const headers = close ? ['-H', 'Connection: close'] : []
  const res = await run('wrk', ['-t1', '-c50', `-d${seconds}s`, '--latency', '--timeout', timeout, ...headers, `http://127.0.0.1:${port}/`], { timeout: (seconds + 30) * 1000 })
  if (res.code !== 0) throw new Error(`wrk failed: ${res.stderr || res.stdout}`)
  return parseWrk(res.stdout)
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

// Starts every contender; resolves [{ name, label, port, daemonPid? }] and the objects to destroy.
async function startAll (pm2Dir) {
  const xpm = new Xpm()
  const pm2 = new Pm2({ toolsDir: pm2Dir })
  const cluster = new Raw()
  const floor = new Raw()
  const owners = [xpm, pm2, cluster, floor]
  const ports = {}
  for (const name of ['rr', 'rp', 'pm2', 'cluster', 'floor']) ports[name] = await freePort()
  try {
    await xpm.cliOk(['start', HELLO, '--name', 'rr', '-i', '2'], { env: { PORT: String(ports.rr) } })
    await xpm.cliOk(['start', HELLO, '--name', 'rp', '-i', '2', '--reuse-port'], { env: { PORT: String(ports.rp) } })
    xpm.track(xpm.daemonPid())
    await pm2.start({ name: 'hello', script: HELLO, instances: 2, env: { PORT: String(ports.pm2) } })
    await cluster.start({ name: 'hello', script: HELLO, instances: 2, env: { PORT: String(ports.cluster) } })
    for (const name of ['f0', 'f1']) await floor.start({ name, script: HELLO_REUSE_PORT, instances: 0, env: { PORT: String(ports.floor) } })
    for (const port of Object.values(ports)) await waitHttp(port)
  } catch (err) {
    for (const c of owners) await c.destroy().catch(() => {})
    throw err
  }
  const contenders = [
    { name: 'xpm-rr', label: 'xpm, round-robin (default)', port: ports.rr, daemonPid: xpm.daemonPid() },
    { name: 'xpm-reuse_port', label: 'xpm, reuse_port', port: ports.rp, daemonPid: xpm.daemonPid() },
    { name: 'pm2', label: `PM2 ${pm2.version()}, cluster`, port: ports.pm2, daemonPid: pm2.daemonPid() },
    { name: 'node-cluster', label: 'bare node:cluster (round-robin)', port: ports.cluster },
    { name: 'floor', label: 'floor: 2 × `node` with reusePort', port: ports.floor }
  ]
  return { contenders, owners }
}

function exeOf (pid) {
  try { return fs.readlinkSync(`/proc/${pid}/exe`) } catch { return null }
}

async function measure (contenders, { rounds, seconds }, log) {
  for (const c of contenders) for (const close of [false, true]) await wrk(c.port, { seconds: 1, close }) // warm-up
  const out = {}
  for (const [kind, close] of [['close', true], ['keepalive', false]]) {
    for (let round = 0; round < rounds; round++) {
      for (const c of contenders) {
        const r = await wrk(c.port, { seconds, close })
        const entry = ((out[c.name] ||= {})[kind] ||= { rps: [], p99: [], errors: [] })
        entry.rps.push(Math.round(r.rps))
        entry.p99.push(r.p99)
        entry.errors.push(r.errors)
        log(`  ${kind} round ${round + 1} ${c.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, ${r.errors} errors`)
      }
    }
  }
  // The daemon stopped (SIGSTOP): round-robin cannot accept; reuse_port workers do not need it.
  for (const c of contenders.filter((x) => x.name.startsWith('xpm-'))) {
    process.kill(c.daemonPid, 'SIGSTOP')
    let r
    try {
      r = await wrk(c.port, { seconds: 3, close: true, timeout: '1s' })
    } finally {
      process.kill(c.daemonPid, 'SIGCONT')
    }
    out[c.name].daemonStopped = { rps: Math.round(r.rps), errors: r.errors, requests: r.requests }
    log(`  daemon stopped ${c.name}: ${Math.round(r.rps)} req/s, ${r.errors} errors`)
  }
  return out
}

function table (contenders, figures) {
  const floor = figures.floor
  const ratio = (a, b) => (a / b).toFixed(2)
  const lines = [
    '| contender | new connections/s (`Connection: close`) | × floor | keep-alive req/s | × floor | p99 close / keep-alive |',
    '|---|---|---|---|---|---|'
  ]
  for (const c of contenders) {
    const f = figures[c.name]
    const close = median(f.close.rps)
    const keep = median(f.keepalive.rps)
    lines.push(`| ${c.label} | ${close} | ${ratio(close, median(floor.close.rps))} | ${keep} | ${ratio(keep, median(floor.keepalive.rps))} | ${median(f.close.p99)} / ${median(f.keepalive.p99)} ms |`)
  }
  const stopped = contenders.filter((c) => figures[c.name].daemonStopped)
  if (stopped.length) {
    lines.push('', '| daemon SIGSTOPped (3 s, new connections, 1 s timeout) | req/s | errors |', '|---|---|---|')
    for (const c of stopped) lines.push(`| ${c.label} | ${figures[c.name].daemonStopped.rps} | ${figures[c.name].daemonStopped.errors} |`)
  }
  return lines.join('\n')
}

async function main () {
  const opts = args(process.argv.slice(2))
  const log = (msg) => process.stderr.write(`${msg}\n`)
  if (process.platform !== 'linux' || !nodeHasReusePort()) throw new Error(`reuse_port needs Linux and Node >= 22.12; this is Node ${process.version} on ${process.platform}: run this with a newer Node`)
  const pm2Dir = await ensurePm2(log)
  const { contenders, owners } = await startAll(pm2Dir)
  let figures
  const exes = {}
  try {
    for (const c of contenders) if (c.daemonPid) exes[c.name] = exeOf(c.daemonPid)
    figures = await measure(contenders, opts, log)
  } finally {
    for (const c of owners) await c.destroy().catch((err) => log(`cleanup: ${err.message}`))
  }
  const wrkVersion = (await run('wrk', ['--version'], { env: benchEnv() })).stdout.match(/wrk (\S+)/)?.[1]
  const result = {
    date: new Date().toISOString(),
    machine: { cpu: os.cpus()[0]?.model.trim(), cores: os.availableParallelism(), os: `${os.type()} ${os.release()}`, node: process.version, daemonExecutables: exes, wrk: wrkVersion, load: os.loadavg().map((x) => Math.round(x * 100) / 100) },
    options: { ...opts, connections: 50, threads: 1, unsetEnv: ['NODE_EXTRA_CA_CERTS'] },
    contenders: contenders.map(({ name, label }) => ({ name, label })),
    figures
  }
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true })
  fs.writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n')
  process.stdout.write(table(contenders, figures) + '\n')
}

main().catch((err) => { console.error(err); process.exitCode = 1 })
