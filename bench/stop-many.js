#!/usr/bin/env node
'use strict'

// node bench/stop-many.js [--xpm name=/checkout,...] [--apps 10] [--instances 100]
//                         [--mode cluster|fork] [--rounds 2] [--command delete|stop|kill]
// Ending many processes at once (issue 38): APPS apps × INSTANCES idle Node processes (a
// `setInterval`, no port) started in a fresh home per round, then `xpm delete all` (or
// `stop all`, or `kill`: the daemon's shutdown) timed from the CLI's spawn to its exit, with the
// daemon's CPU time meanwhile and its longest event-loop stall (bench/lib/loop-probe.js,
// preloaded through NODE_OPTIONS). Checkouts alternate round by round (say before=<a git archive
// of an earlier commit, with a node_modules>,xpm=.). NODE_EXTRA_CA_CERTS is unset for every
// process (bench/lib/util.js). Prints one line per round and the medians; every process started
// here is ended by pid. Not part of `npm run bench`.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { benchEnv, run, runOk, waitFor, cpuMs, descendants, kill, isAlive, delay } = require('./lib/util')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const APPS = Number(opt('--apps', 10))
const INSTANCES = Number(opt('--instances', 100))
const MODE = opt('--mode', 'cluster')
const ROUNDS = Number(opt('--rounds', 2))
const COMMAND = opt('--command', 'delete')
const XPMS = opt('--xpm', `xpm=${path.join(__dirname, '..')}`).split(',').map((s) => s.split('='))
const PROBE = path.join(__dirname, 'lib', 'loop-probe.js')
const IDLE = "'use strict'\nsetInterval(() => {}, 1e9)\n"
const ARGS = { delete: ['delete', 'all'], stop: ['stop', 'all'], kill: ['kill'] }
const log = (msg) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`)
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)] }

async function round (name, root) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-stop-'))
  const loopFile = path.join(home, 'loop.json')
  const env = benchEnv({ XPM_HOME: home, FORCE_COLOR: '0', NODE_OPTIONS: `--require ${PROBE}`, XPM_BENCH_LOOP_FILE: loopFile })
  const bin = path.join(path.resolve(root), 'bin', 'xpm')
  const script = path.join(home, 'idle.js')
  fs.writeFileSync(script, IDLE)
  const apps = Array.from({ length: APPS }, (_, i) => ({ name: `idle${i}`, script, instances: INSTANCES, exec_mode: MODE }))
  const file = path.join(home, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps })}\n`)
  let daemon = 0
  let pids = []
  try {
    await runOk(process.execPath, [bin, 'start', file], { env, cwd: home, timeout: 300000 })
    daemon = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'))
    await waitFor(async () => {
      const rows = JSON.parse((await runOk(process.execPath, [bin, 'jlist'], { env, timeout: 60000 })).stdout)
      return rows.filter((r) => r.status === 'online').length === APPS * INSTANCES
    }, { timeout: 300000, interval: 1000 })
    pids = descendants(daemon)
    await delay(3000) // the agents' first reports, then quiet
    const cpu0 = cpuMs(daemon)
    const e0 = Date.now()
    const res = await run(process.execPath, [bin, ...ARGS[COMMAND]], { env, timeout: 300000 })
    const cpu = (isAlive(daemon) ? cpuMs(daemon) : NaN) - cpu0
    await delay(1100) // the probe writes once a second
    const seconds = JSON.parse(fs.readFileSync(loopFile, 'utf8'))
    const stall = Math.max(0, ...seconds.filter(([at]) => at > e0 && at <= e0 + res.ms + 1000).map(([, ms]) => ms))
    return { name, ms: res.ms, code: res.code, cpu, stall }
  } finally {
    await run(process.execPath, [bin, 'kill'], { env, timeout: 120000 })
    for (const pid of [daemon, ...pids]) if (pid && isAlive(pid)) kill(pid)
    fs.rmSync(home, { recursive: true, force: true })
  }
}

async function main () {
  log(`${APPS} apps × ${INSTANCES} ${MODE} instances, \`${ARGS[COMMAND].join(' ')}\`, ${ROUNDS} rounds, load ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`)
  const results = {}
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, root] of XPMS) {
      const one = await round(name, root)
      ;(results[name] ??= []).push(one)
      log(`${name}: ${Math.round(one.ms)} ms (exit ${one.code}), daemon CPU ${Math.round(one.cpu)} ms, longest stall ${Math.round(one.stall)} ms, load ${os.loadavg()[0].toFixed(1)}`)
    }
  }
  for (const [name, rows] of Object.entries(results)) {
    process.stdout.write(`${name}: median ${Math.round(median(rows.map((r) => r.ms)))} ms, daemon CPU ${Math.round(median(rows.map((r) => r.cpu)))} ms, longest stall ${Math.round(median(rows.map((r) => r.stall)))} ms (${rows.length} rounds)\n`)
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exit(1)
})
