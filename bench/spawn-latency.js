#!/usr/bin/env node
'use strict'

// node bench/spawn-latency.js [--processes 100] [--rounds 3]
// What one fork() costs a Node parent's thread (docs/benchmarks.md, "Start"): libuv's spawn
// returns only once the child has reached execve(), so the parent's thread waits for the kernel to
// run the child once. Measured from a bare Node parent, no xpm:
//  - `true`: 50 spawns of /bin/true one after another (nothing else runs: the cost of fork+exec);
//  - `node, all at once`: N `node idle.js` spawned in one loop, as the scale measure's floor does
//    (each new child waits behind its booting siblings);
//  - `node, at most K booting`: the next spawn waits until fewer than K children are still
//    booting (have not written their line), the way a launcher could bound the contention.
// Per case: median and p90 of one spawn() call (ms) and the time until all N are up.
// NODE_EXTRA_CA_CERTS is unset for every child (it adds the CA bundle's parse to each start).
// Prints JSON; not part of `npm run bench`.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { performance } = require('node:perf_hooks')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : Number(args[i + 1]) }
const N = opt('--processes', 100)
const ROUNDS = opt('--rounds', 3)
const env = { ...process.env }
delete env.NODE_EXTRA_CA_CERTS

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-spawn-latency-'))
const idle = path.join(dir, 'idle.js')
fs.writeFileSync(idle, "setInterval(() => {}, 1000)\nsetImmediate(() => process.stdout.write('up\\n'))\n")

const quantile = (a, q) => { const s = [...a].sort((x, y) => x - y); return +s[Math.min(s.length - 1, Math.floor(s.length * q))].toFixed(2) }

function spawnTrue () {
  const times = []
  for (let i = 0; i < 50; i++) {
    const t = performance.now()
    spawn('true', [], { stdio: 'ignore', env })
    times.push(performance.now() - t)
  }
  return { spawnMedianMs: quantile(times, 0.5), spawnP90Ms: quantile(times, 0.9) }
}

// Resolves { spawnMedianMs, spawnP90Ms, allUpMs } once all N children wrote their line; kills them.
function spawnNodes (maxBooting = Infinity) {
  return new Promise((resolve) => {
    const children = []
    const times = []
    let started = 0
    let up = 0
    let booting = 0
    const t0 = performance.now()
    const pump = () => {
      while (started < N && booting < maxBooting) {
        const t = performance.now()
        const child = spawn(process.execPath, [idle], { stdio: ['ignore', 'pipe', 'ignore'], env })
        times.push(performance.now() - t)
        children.push(child)
        started++
        booting++
        child.stdout.once('data', () => {
          booting--
          if (++up < N) return pump()
          const allUpMs = Math.round(performance.now() - t0)
          for (const c of children) c.kill('SIGKILL')
          Promise.all(children.map((c) => c.exitCode !== null || c.signalCode !== null ? null : new Promise((resolve) => c.once('exit', resolve))))
            .then(() => resolve({ spawnMedianMs: quantile(times, 0.5), spawnP90Ms: quantile(times, 0.9), allUpMs }))
        })
      }
    }
    pump()
  })
}

async function main () {
  const cases = [['true', () => spawnTrue()], ['node, all at once', () => spawnNodes()], ['node, at most 4 booting', () => spawnNodes(4)], ['node, at most 2 booting', () => spawnNodes(2)], ['node, at most 8 booting', () => spawnNodes(8)]]
  const out = { processes: N, cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((x) => +x.toFixed(2)), cases: {} }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of cases) (out.cases[name] ??= []).push(await run())
  }
  fs.rmSync(dir, { recursive: true, force: true })
  console.log(JSON.stringify(out, null, 2))
}

main()
