#!/usr/bin/env node
'use strict'

// node bench/soak.js [--short | --long | --minutes N] [--only xpm|pm2] [--together] [--out file]
// A soak of xpm and PM2 side by side (issue 38): 20 apps each (four crashing every 1–2 s, two
// cluster apps under keep-alive HTTP load, two writing ~200 KB/s of logs, a memory-limit
// restart, a cron restart, a probed app, nine idle ones: bench/soak/apps.js), a command every
// 2 s (reload, restart, scale, start+delete, save, jlist, logs, show), xpm's /metrics scraped
// every 5 s; every minute the daemon's RSS, heap after a forced GC (through its inspector,
// opened and closed again by the bench: bench/soak/inspect.js), open fds, threads, timers and
// active handles, child processes and CPU. --short is 10 minutes, --long 60, the default 3.
// Contenders run one after the other (--together: at once, half the time, sharing the cores).
// Prints the tables and the second half's slopes; writes the readings to bench/results/.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { ensureTools } = require('./lib/tools')
const { soakOne } = require('./soak/contender')
const { summary, markdown } = require('./soak/report')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const minutes = args.includes('--long') ? 60 : args.includes('--short') ? 10 : Number(opt('--minutes', 3))
const only = opt('--only', null)
const names = ['xpm', 'pm2'].filter((n) => !only || n === only)
const log = (msg) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`)

async function main () {
  const tools = names.includes('pm2') ? await ensureTools({ log }) : null
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-soak-'))
  const loadStart = os.loadavg().map((v) => +v.toFixed(2))
  const started = new Date().toISOString()
  let runs
  try {
    const one = (name) => soakOne(name, { minutes, toolsDir: tools?.dir, dir, log })
    if (args.includes('--together')) runs = await Promise.all(names.map(one))
    else {
      runs = []
      for (const name of names) runs.push(await one(name))
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const result = {
    started,
    minutes,
    together: args.includes('--together'),
    node: process.version,
    cores: os.cpus().length,
    load: { start: loadStart, end: os.loadavg().map((v) => +v.toFixed(2)) },
    runs: runs.map((r) => ({ ...r, summary: summary(r) }))
  }
  const file = opt('--out', path.join(__dirname, 'results', `soak-${minutes}min.json`))
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
  process.stdout.write(`${markdown(runs)}\n`)
  for (const r of result.runs) {
    process.stdout.write(`${r.name}: requests ${JSON.stringify(r.requests)}; scrapes ${JSON.stringify(r.scrapes)}; leftovers after kill ${r.leftovers}\n`)
    process.stdout.write(`${r.name} commands: ${JSON.stringify(r.commands)}\n`)
  }
  log(`written to ${file}; load average at start ${loadStart.join(', ')}, at end ${result.load.end.join(', ')}`)
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exit(1)
})
