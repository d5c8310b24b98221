#!/usr/bin/env node
'use strict'

// node bench/tree-costs.js [--rounds N] [--cgroup-root /sys/fs/cgroup/unified]
// What finding an instance's processes costs (docs/architecture.md#process-trees): one read of
// the tree tag over /proc (lib/shared/tag-scan.js), against what a cgroup v2 group per instance would
// cost where the machine lets us manage one: create it, move a fresh process in, read
// cgroup.procs, cgroup.kill until the process has exited, remove it. The cgroup part runs only
// where the root is writable (root, or a delegated subtree) and cleans up what it creates.
// Prints JSON (medians and p95 in ms); not part of `npm run bench`.
const fs = require('node:fs')
const fsp = fs.promises
const { spawn } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { readTagged } = require('../lib/shared/tag-scan')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : args[i + 1] }
const ROUNDS = Number(opt('--rounds', 100))
const CG_ROOT = opt('--cgroup-root', fs.existsSync('/sys/fs/cgroup/unified/cgroup.procs') ? '/sys/fs/cgroup/unified' : '/sys/fs/cgroup')

const stats = (a) => {
  const s = [...a].sort((x, y) => x - y)
  return { median: +s[Math.floor(s.length / 2)].toFixed(3), p95: +s[Math.min(s.length - 1, Math.floor(s.length * 0.95))].toFixed(3) }
}

async function tagScan () {
  const t = []
  for (let i = 0; i < Math.min(ROUNDS, 30); i++) {
    const s = performance.now()
    await readTagged('/proc')
    t.push(performance.now() - s)
  }
  return { processes: fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length, ...stats(t) }
}

async function cgroups () {
  const base = `${CG_ROOT}/xpm-bench-${process.pid}`
  try {
    await fsp.mkdir(base)
  } catch (err) {
    return { root: CG_ROOT, available: false, why: err.code }
  }
  const t = { mkdir: [], move: [], list: [], kill: [], rmdir: [] }
  const hasKill = fs.existsSync(`${base}/cgroup.kill`)
  const children = new Set()
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const child = spawn('sleep', ['100'], { stdio: 'ignore' })
      children.add(child)
      await new Promise((resolve) => child.once('spawn', resolve))
      const exited = new Promise((resolve) => child.once('exit', resolve))
      const dir = `${base}/i${i}`
      let s = performance.now(); await fsp.mkdir(dir); t.mkdir.push(performance.now() - s)
      s = performance.now(); await fsp.writeFile(`${dir}/cgroup.procs`, String(child.pid)); t.move.push(performance.now() - s)
      s = performance.now(); await fsp.readFile(`${dir}/cgroup.procs`, 'utf8'); t.list.push(performance.now() - s)
      s = performance.now()
      if (hasKill) await fsp.writeFile(`${dir}/cgroup.kill`, '1')
      else child.kill('SIGKILL')
      await exited
      children.delete(child)
      t.kill.push(performance.now() - s)
      s = performance.now()
      for (let k = 0; k < 1000; k++) {
        try { await fsp.rmdir(dir); break } catch (err) { if (err.code !== 'EBUSY') throw err; await new Promise((resolve) => setImmediate(resolve)) }
      }
      t.rmdir.push(performance.now() - s)
    }
  } finally {
    for (const child of children) child.kill('SIGKILL')
    for (const d of fs.readdirSync(base)) if (d.startsWith('i')) try { fs.rmdirSync(`${base}/${d}`) } catch {}
    fs.rmdirSync(base)
  }
  return { root: CG_ROOT, available: true, cgroupKill: hasKill, rounds: ROUNDS, ...Object.fromEntries(Object.entries(t).map(([k, v]) => [k, stats(v)])) }
}

async function main () {
  const self = fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')
  console.log(JSON.stringify({ node: process.version, cgroupOfThisProcess: self, tagScan: await tagScan(), cgroups: await cgroups() }, null, 2))
}

main().catch((err) => { console.error(err); process.exit(1) })
