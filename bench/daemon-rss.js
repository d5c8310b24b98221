#!/usr/bin/env node
'use strict'

// node bench/daemon-rss.js [--xpm name=/checkout,...] [--no-pm2] [--counts 0,10,100] [--settle 40] [--rounds 5]
// The daemon's memory by number of processes (issue 27, "Smaller daemon"): for each count, a
// fresh daemon in a private home starts that many idle fork-mode Node apps from one ecosystem
// file; once all are online and SETTLE seconds have passed with nobody asking anything, its RSS
// and USS (private clean + dirty pages, /proc/<pid>/smaps_rollup) are read, then it is killed.
// Rounds alternate the contenders (several xpm checkouts, e.g. before=<git archive of main>,
// and PM2 from the bench tools folder), so a change is read beside its baseline in one run.
// NODE_EXTRA_CA_CERTS is unset for every contender (bench/lib/util.js). Prints medians and every
// reading; not part of `npm run bench` (bench/measures/idle.js reads the same at 0, 10, 100 and
// 1,000 processes, once each, inside the full run).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { benchEnv, runOk, rss, uss, delay } = require('./lib/util')
const { DEFAULT_DIR: TOOLS } = require('./lib/tools')
const { waitOnline, endRound } = require('./lib/daemon-round')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const COUNTS = opt('--counts', '0,10,100').split(',').map(Number)
const SETTLE_MS = Number(opt('--settle', 40)) * 1000
const ROUNDS = Number(opt('--rounds', 5))
const XPMS = opt('--xpm', `xpm=${path.join(__dirname, '..')}`).split(',').map((s) => s.split('='))
const PM2_BIN = path.join(TOOLS, 'node_modules', 'pm2', 'bin', 'pm2')
const CONTENDERS = XPMS.map(([name, root]) => ({ name, bin: path.join(path.resolve(root), 'bin', 'xpm'), homeVar: 'XPM_HOME', pidFile: 'daemon.pid', online: (r) => r.status === 'online' }))
if (!args.includes('--no-pm2') && fs.existsSync(PM2_BIN)) {
  CONTENDERS.push({ name: 'pm2', bin: PM2_BIN, homeVar: 'PM2_HOME', pidFile: 'pm2.pid', online: (r) => r.pm2_env?.status === 'online', env: { PM2_DISCRETE_MODE: 'true' } })
}

const IDLE_APP = "'use strict'\nsetInterval(() => {}, 1e9)\nsetImmediate(() => process.stdout.write('up ' + process.pid + '\\n'))\n"

async function reading (c, count, dir) {
  const home = fs.mkdtempSync(path.join(dir, `${c.name}-${count}-`))
  const env = benchEnv({ [c.homeVar]: home, FORCE_COLOR: '0', ...c.env })
  const cli = (...a) => runOk(process.execPath, [c.bin, ...a], { env, cwd: dir, timeout: 180000 })
  await cli('ping')
  const daemon = Number(fs.readFileSync(path.join(home, c.pidFile), 'utf8'))
  let pids = []
  try {
    if (count > 0) {
      const apps = Array.from({ length: count }, (_, i) => ({ name: `idle${i}`, script: path.join(dir, 'idle.js'), exec_mode: 'fork' }))
      const file = path.join(home, 'apps.config.js')
      fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps })}\n`)
      await cli('start', file)
      await waitOnline(cli, c, count, (seen) => { pids = seen })
    }
    await delay(SETTLE_MS) // the figure is read after a quiet period, as a user would see it
    return { rss: rss(daemon) / 1048576, uss: uss(daemon) / 1048576 }
  } finally {
    await endRound(cli, { home, daemon, pids })
  }
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-daemon-rss-'))
  fs.writeFileSync(path.join(dir, 'idle.js'), IDLE_APP)
  const figures = {}
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const count of COUNTS) {
        for (const c of CONTENDERS) {
          const r = await reading(c, count, dir)
          ;((figures[c.name] ||= {})[count] ||= []).push(r)
          process.stderr.write(`round ${round + 1}: ${c.name} ${count} processes: RSS ${r.rss.toFixed(1)} MB, USS ${r.uss.toFixed(1)} MB\n`)
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const out = {}
  for (const [name, byCount] of Object.entries(figures)) {
    out[name] = {}
    for (const [count, rs] of Object.entries(byCount)) {
      out[name][count] = { rss: +median(rs.map((r) => r.rss)).toFixed(1), uss: +median(rs.map((r) => r.uss)).toFixed(1), rssAll: rs.map((r) => +r.rss.toFixed(1)) }
    }
  }
  process.stdout.write(JSON.stringify({ settleS: SETTLE_MS / 1000, rounds: ROUNDS, node: process.version, figures: out }, null, 2) + '\n')
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exit(1)
})
