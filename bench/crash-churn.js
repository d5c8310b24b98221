#!/usr/bin/env node
'use strict'

// node bench/crash-churn.js [--xpm name=/checkout,...] [--no-pm2] [--apps 4] [--seconds 120]
//                           [--warmup 10] [--rounds 1] [--unrelated 0]
// The daemon's CPU under crash churn (issue 38): APPS fork-mode Node apps that each crash 1 to 2 s
// after they start (min_uptime 500 ms, so every restart is a stable one and no backoff slows
// it), for SECONDS after a WARMUP, in a fresh private home per contender: several xpm checkouts
// (e.g. before=<git archive of an earlier commit>, with a node_modules) and PM2 from the bench
// tools folder, alternating round by round. Reports the daemon's CPU (user + system, % of one
// core), the restarts in the window and the daemon's CPU per restart, and the load average
// around each reading. --unrelated N: N idle `sleep`s (children of this bench) run meanwhile,
// as unrelated processes of the host. NODE_EXTRA_CA_CERTS is unset for every contender
// (bench/lib/util.js). Every process started here is ended by pid.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { benchEnv, runOk, isAlive, kill, waitFor, delay, cpuSeconds, startTimeOf } = require('./lib/util')
const { DEFAULT_DIR: TOOLS } = require('./lib/tools')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const APPS = Number(opt('--apps', 4))
const SECONDS = Number(opt('--seconds', 120))
const WARMUP_S = Number(opt('--warmup', 10))
const ROUNDS = Number(opt('--rounds', 1))
const UNRELATED = Number(opt('--unrelated', 0))
const XPMS = opt('--xpm', `xpm=${path.join(__dirname, '..')}`).split(',').map((s) => s.split('='))
const PM2_BIN = path.join(TOOLS, 'node_modules', 'pm2', 'bin', 'pm2')
const CONTENDERS = XPMS.map(([name, root]) => ({ name, bin: path.join(path.resolve(root), 'bin', 'xpm'), homeVar: 'XPM_HOME', pidFile: 'daemon.pid', online: (r) => r.status === 'online' }))
if (!args.includes('--no-pm2') && fs.existsSync(PM2_BIN)) {
  CONTENDERS.push({ name: 'pm2', bin: PM2_BIN, homeVar: 'PM2_HOME', pidFile: 'pm2.pid', online: (r) => r.pm2_env?.status === 'online', env: { PM2_DISCRETE_MODE: 'true' } })
}

const CRASHER = "'use strict'\nsetInterval(() => {}, 1e9)\nsetTimeout(() => { throw new Error('crash churn') }, 1000 + Math.random() * 1000)\n"
const restartsOf = (r) => Number(r.restarts ?? r.pm2_env?.restart_time ?? 0)
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

async function reading (c, dir) {
  const home = fs.mkdtempSync(path.join(dir, `${c.name}-`))
  const env = benchEnv({ [c.homeVar]: home, FORCE_COLOR: '0', ...c.env })
  const cli = (...a) => runOk(process.execPath, [c.bin, ...a], { env, cwd: dir, timeout: 120000 })
  const rows = async () => JSON.parse((await cli('jlist')).stdout.replace(/^[^[]*/, ''))
  await cli('ping')
  const daemon = Number(fs.readFileSync(path.join(home, c.pidFile), 'utf8'))
  const seen = new Map() // pid → its process's start time: a recycled pid is not killed
  try {
    const apps = Array.from({ length: APPS }, (_, i) => ({ name: `crash${i}`, script: path.join(dir, 'crasher.js'), exec_mode: 'fork', min_uptime: 500, max_restarts: 100000 }))
    const file = path.join(home, 'apps.config.js')
    fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps })}\n`)
    await cli('start', file)
    await waitFor(async () => (await rows()).filter(c.online).length >= APPS, { timeout: 60000, interval: 300, message: `${APPS} apps online under ${c.name}` })
    await delay(WARMUP_S * 1000)
    const before = (await rows()).reduce((n, r) => n + restartsOf(r), 0)
    const load0 = loadavg()
    const t0 = Date.now()
    const cpu0 = cpuSeconds(daemon)
    await delay(SECONDS * 1000)
    const cpu1 = cpuSeconds(daemon)
    const t1 = Date.now()
    const list = await rows()
    for (const r of list) if (r.pid && !seen.has(r.pid)) seen.set(r.pid, startTimeOf(r.pid))
    const restarts = list.reduce((n, r) => n + restartsOf(r), 0) - before
    const cpuS = cpu1 - cpu0
    return { cpuPct: +(cpuS / ((t1 - t0) / 1000) * 100).toFixed(2), restarts, cpuMsPerRestart: restarts ? +(cpuS * 1000 / restarts).toFixed(2) : null, load: `${load0} → ${loadavg()}` }
  } finally {
    await cli('kill').catch(() => {})
    await waitFor(() => !isAlive(daemon), { timeout: 30000, interval: 100 }).catch(() => {})
    if (isAlive(daemon)) kill(daemon)
    for (const [pid, started] of seen) if (started !== null && startTimeOf(pid) === started) kill(pid)
    fs.rmSync(home, { recursive: true, force: true })
  }
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-crash-churn-'))
  fs.writeFileSync(path.join(dir, 'crasher.js'), CRASHER)
  const sleeps = Array.from({ length: UNRELATED }, () => spawn('sleep', ['3600'], { stdio: 'ignore' }))
  const figures = {}
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of round % 2 ? [...CONTENDERS].reverse() : CONTENDERS) {
        const r = await reading(c, dir)
        ;(figures[c.name] ||= []).push(r)
        process.stderr.write(`round ${round + 1}: ${c.name}: daemon CPU ${r.cpuPct} % of a core, ${r.restarts} restarts, ${r.cpuMsPerRestart} ms CPU per restart, load ${r.load}\n`)
      }
    }
  } finally {
    for (const s of sleeps) if (s.pid) kill(s.pid)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  process.stdout.write(JSON.stringify({ apps: APPS, seconds: SECONDS, unrelated: UNRELATED, node: process.version, cpus: os.cpus().length, figures }, null, 2) + '\n')
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exit(1)
})
