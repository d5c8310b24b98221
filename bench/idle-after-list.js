#!/usr/bin/env node
'use strict'

// node bench/idle-after-list.js [--apps 100] [--quiet 15] [--window 60] [--rounds 3] [--no-pm2]
// Issue 38, "Closer to the floor": the daemon's idle CPU in the minute after a `list`. For each
// contender, alternating, a fresh daemon in a private home starts APPS idle fork-mode Node apps
// from one ecosystem file; once all are online, `list` runs once, then QUIET seconds pass and the
// daemon's CPU (all threads, bench/lib/util.js cpuMs) is read over WINDOW seconds, with its RSS
// at the end. The idle measure (bench/measures/idle.js) reads the same window after the `jlist`
// polls that wait for the processes; this one asks for the human table, as a user would.
// Runs on the node that runs it (both tools' CLIs and daemons). NODE_EXTRA_CA_CERTS is unset for
// every contender (bench/lib/util.js). Prints medians and every reading.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { benchEnv, runOk, rss, cpuMs, delay } = require('./lib/util')
const { DEFAULT_DIR: TOOLS } = require('./lib/tools')
const { waitOnline, endRound } = require('./lib/daemon-round')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const APPS = Number(opt('--apps', 100))
const QUIET_MS = Number(opt('--quiet', 15)) * 1000
const WINDOW_MS = Number(opt('--window', 60)) * 1000
const ROUNDS = Number(opt('--rounds', 3))
const PM2_BIN = path.join(TOOLS, 'node_modules', 'pm2', 'bin', 'pm2')
const CONTENDERS = [{ name: 'xpm', bin: path.join(__dirname, '..', 'bin', 'xpm'), homeVar: 'XPM_HOME', pidFile: 'daemon.pid', online: (r) => r.status === 'online' }]
if (!args.includes('--no-pm2') && fs.existsSync(PM2_BIN)) {
  CONTENDERS.push({ name: 'pm2', bin: PM2_BIN, homeVar: 'PM2_HOME', pidFile: 'pm2.pid', online: (r) => r.pm2_env?.status === 'online', env: { PM2_DISCRETE_MODE: 'true' } })
}

const IDLE_APP = "'use strict'\nsetInterval(() => {}, 1e9)\nsetImmediate(() => process.stdout.write('up ' + process.pid + '\\n'))\n"

async function reading (c, dir) {
  const home = fs.mkdtempSync(path.join(dir, `${c.name}-`))
  const env = benchEnv({ [c.homeVar]: home, FORCE_COLOR: '0', ...c.env })
  const cli = (...a) => runOk(process.execPath, [c.bin, ...a], { env, cwd: dir, timeout: 180000 })
  await cli('ping')
  const daemon = Number(fs.readFileSync(path.join(home, c.pidFile), 'utf8'))
  let pids = []
  try {
    const apps = Array.from({ length: APPS }, (_, i) => ({ name: `idle${i}`, script: path.join(dir, 'idle.js'), exec_mode: 'fork' }))
    const file = path.join(home, 'apps.config.js')
    fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps })}\n`)
    await cli('start', file)
    await waitOnline(cli, c, APPS, (seen) => { pids = seen })
    await delay(QUIET_MS) // out of the jlist polls' reach first, so the `list` below is the only ask
    await cli('list')
    await delay(QUIET_MS)
    const c0 = cpuMs(daemon)
    const t0 = performance.now()
    await delay(WINDOW_MS)
    const cpu = (cpuMs(daemon) - c0) / (performance.now() - t0) * 100
    return { cpu, rss: rss(daemon) / 1048576 }
  } finally {
    await endRound(cli, { home, daemon, pids })
  }
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-idle-after-list-'))
  fs.writeFileSync(path.join(dir, 'idle.js'), IDLE_APP)
  const figures = {}
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of CONTENDERS) {
        const r = await reading(c, dir)
        ;(figures[c.name] ||= []).push(r)
        process.stderr.write(`round ${round + 1}: ${c.name}: CPU ${r.cpu.toFixed(3)} % of a core, RSS ${r.rss.toFixed(1)} MB, load ${os.loadavg()[0].toFixed(2)}\n`)
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const out = {}
  for (const [name, rs] of Object.entries(figures)) {
    out[name] = { cpu: +median(rs.map((r) => r.cpu)).toFixed(3), rss: +median(rs.map((r) => r.rss)).toFixed(1), cpuAll: rs.map((r) => +r.cpu.toFixed(3)), rssAll: rs.map((r) => +r.rss.toFixed(1)) }
  }
  process.stdout.write(JSON.stringify({ apps: APPS, quietS: QUIET_MS / 1000, windowS: WINDOW_MS / 1000, rounds: ROUNDS, node: process.version, load: os.loadavg(), figures: out }, null, 2) + '\n')
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exit(1)
})
