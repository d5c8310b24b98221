#!/usr/bin/env node
'use strict'

// node bench/fleet-list.js [--hosts 10] [--runs 10]
// `xpm list --hosts` / `xpm jlist --hosts` over N "hosts" (N real sshd on loopback, each with its
// own XPM_HOME and daemon running 2 processes: test/helpers/fleet.js) against the shell loop it
// replaces, `for h in …; do ssh h xpm jlist; done`, timed by hyperfine. The remote xpm is this
// checkout's bin/xpm for both (XPM_REMOTE_BIN, the loop's full path). Prints hyperfine's table
// and the medians; the figures go in docs/benchmarks.md by hand. Not part of `npm run bench`.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { startFleet, REMOTE_BIN } = require('../test/helpers/fleet')
const { fixture } = require('../test/helpers/xpm')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : Number(args[i + 1]) }
const HOSTS = opt('--hosts', 10)
const RUNS = opt('--runs', 10)

async function main () {
  try { execFileSync('hyperfine', ['--version']) } catch { throw new Error('hyperfine is not installed (apt-get install hyperfine)') }
  const cleanups = []
  const t = { after: (fn) => cleanups.push(fn) }
  try {
    const f = await startFleet(t, HOSTS)
    for (const h of f.hosts) {
      const r = await h.home.run(['start', fixture('idle.js'), '-i', '2', '--name', 'api'])
      if (r.code !== 0) throw new Error(r.stderr)
    }
    const xpm = `${process.execPath} ${path.join(__dirname, '..', 'bin', 'xpm')}`
    const loop = `for p in ${f.hosts.map((h) => h.port).join(' ')}; do $XPM_SSH -p $p 127.0.0.1 ${REMOTE_BIN} jlist; done`
    const out = path.join(os.tmpdir(), `xpm-fleet-bench-${process.pid}.json`)
    const load = os.loadavg().map((n) => n.toFixed(2)).join(', ')
    execFileSync('hyperfine', ['--warmup', '1', '--runs', String(RUNS), '--export-json', out,
      '-n', `xpm list --hosts (${HOSTS})`, `${xpm} list --hosts production`,
      '-n', `xpm jlist --hosts (${HOSTS})`, `${xpm} jlist --hosts production`,
      '-n', `ssh loop: xpm jlist (${HOSTS})`, loop], { cwd: f.dir, env: { ...f.env, XPM_REMOTE_BIN: REMOTE_BIN }, stdio: 'inherit' })
    const { results } = JSON.parse(fs.readFileSync(out, 'utf8'))
    fs.rmSync(out, { force: true })
    console.log(`\nload average at start: ${load}; at end: ${os.loadavg().map((n) => n.toFixed(2)).join(', ')}`)
    for (const r of results) console.log(`${r.command}: median ${(r.median * 1000).toFixed(0)} ms (${(r.min * 1000).toFixed(0)}–${(r.max * 1000).toFixed(0)})`)
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => {})
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1 })
