#!/usr/bin/env node
'use strict'

// node bench/sweep-cost.js [--rounds 30] [--unrelated 1000]
// What one look for a launch's leftovers costs after an exit (issue 38), with 0 and with N
// unrelated idle processes on the host, for the read of every environment on the machine
// (before: lib/shared/tag-scan.js readTagged) and for the candidates of the launch
// (after: daemon/launchers/leftover-scan.js). The unrelated processes are `sleep`s started
// before the launch, placed two ways:
//   below  children of this bench, as a service's workers or another manager's apps are;
//   init   adopted by init (their shell exits), as daemonized processes are: the sweep reads
//          each one's stat (start time), never its environment.
// A launch: a tagged shell (the leader) that starts a tagged helper and exits, so init adopts
// the helper (nothing is signalled: only the finding is timed). Medians and maxima in ms, the two ways
// alternating round by round; every process started here is ended by pid. Prints JSON.
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { readTagged } = require('../lib/shared/tag-scan')
const { leftoverScanner, readStartTime } = require('../daemon/launchers/leftover-scan')
const { parseForks } = require('../lib/shared/pid-window')
const { summarize } = require('./lib/stats')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const ROUNDS = Number(opt('--rounds', 30))
const UNRELATED = Number(opt('--unrelated', 1000))
const started = new Set()

const spawned = (child) => new Promise((resolve, reject) => { child.once('spawn', resolve); child.once('error', reject) })

// n `sleep 600` adopted by init: pids.
async function adoptedSleeps (n, env = {}) {
  const sh = spawn('sh', ['-c', `i=0; while [ $i -lt ${n} ]; do sleep 600 & echo $!; i=$((i+1)); done`], { stdio: ['ignore', 'pipe', 'ignore'], detached: true, env: { PATH: process.env.PATH, ...env } })
  let out = ''
  sh.stdout.on('data', (d) => { out += d })
  await new Promise((resolve) => sh.once('exit', resolve))
  const pids = out.trim().split('\n').filter(Boolean).map(Number)
  for (const pid of pids) started.add(pid)
  return pids
}

async function childSleeps (n) {
  const kids = []
  for (let i = 0; i < n; i++) kids.push(spawn('sleep', ['600'], { stdio: 'ignore' }))
  await Promise.all(kids.map(spawned))
  for (const k of kids) started.add(k.pid)
  return kids.map((k) => k.pid)
}

function endAll (pids) {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL') } catch {}
    started.delete(pid)
  }
}

const hostProcesses = () => fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length

async function measure (placement) {
  const unrelated = placement === 'none' ? [] : placement === 'below' ? await childSleeps(UNRELATED) : await adoptedSleeps(UNRELATED)
  const env = { XPM_TREE: `bench${process.pid}/app/0`, XPM_LAUNCH: `${process.pid}-bench` }
  // the launch: a shell that starts the helper and exits, so init adopts the helper
  const forks = parseForks(fs.readFileSync('/proc/stat', 'latin1'))
  const leader = spawn('sh', ['-c', 'sleep 600 & echo $!; sleep 0.2'], { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH, ...env } })
  await spawned(leader)
  const since = await readStartTime(leader.pid)
  let out = ''
  leader.stdout.on('data', (d) => { out += d })
  await new Promise((resolve) => leader.once('exit', resolve))
  const helper = Number(out.trim())
  started.add(helper)
  const scanner = leftoverScanner({ since, launch: { pid: leader.pid, forks } })
  const find = { before: () => readTagged('/proc'), after: () => scanner.tagged() }
  const times = { before: [], after: [] }
  const found = {}
  for (let i = 0; i < ROUNDS; i++) {
    for (const way of i % 2 ? ['after', 'before'] : ['before', 'after']) {
      const t0 = performance.now()
      const procs = await find[way]()
      times[way].push(performance.now() - t0)
      found[way] = procs.filter((p) => p.launch === env.XPM_LAUNCH).map((p) => p.pid).sort()
    }
  }
  const processes = hostProcesses()
  endAll([helper, ...unrelated])
  const summary = (a) => { const s = summarize(a); return { median: +s.median.toFixed(2), max: +s.max.toFixed(2) } }
  return { placement, unrelated: unrelated.length, hostProcesses: processes, foundBefore: found.before, foundAfter: found.after, before: summary(times.before), after: summary(times.after) }
}

async function main () {
  const rows = []
  for (const placement of ['none', 'below', 'init']) rows.push(await measure(placement))
  console.log(JSON.stringify({ node: process.version, rounds: ROUNDS, loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim(), rows }, null, 2))
}

process.on('exit', () => endAll([...started]))
main().catch((err) => { console.error(err); process.exitCode = 1 })
