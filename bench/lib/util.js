'use strict'

const fs = require('node:fs')
const http = require('node:http')
const { execFile } = require('node:child_process')
const { setTimeout: delay } = require('node:timers/promises')
const { isAlive } = require('../../lib/shared/pid')
const { waitFor: waitUntil, freePort } = require('../../test/helpers/wait')

// Benchmarks wait longer by default: a daemon under load answers slower than in the tests.
const waitFor = (fn, opts) => waitUntil(fn, { timeout: 15000, ...opts })

const CLK_TCK = 100

// Every process a benchmark starts (contenders' CLIs and daemons, their apps, floors, load
// generators) runs without NODE_EXTRA_CA_CERTS: with it set, each Node process reads and parses
// the CA bundle at start-up, which adds tens of ms to every `node` spawn and would swamp the
// start-up and CLI figures with a cost that has nothing to do with the tools compared.
const UNSET_ENV = ['NODE_EXTRA_CA_CERTS']

// process.env without UNSET_ENV, plus `extra`.
function benchEnv (extra = {}) {
  const env = { ...process.env, ...extra }
  for (const name of UNSET_ENV) delete env[name]
  return env
}

// Runs a program to completion; resolves { code, stdout, stderr, ms } and never rejects.
function run (file, args, { env = benchEnv(), cwd, timeout = 60000 } = {}) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint()
    const child = execFile(file, args, { env, cwd, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms, signal: err?.signal })
    })
    child.stdin.end()
  })
}

// Like run() but rejects with the output when the program fails.
async function runOk (file, args, opts) {
  const res = await run(file, args, opts)
  if (res.code !== 0) {
    const what = `${file.split('/').pop()} ${args.join(' ')}`
    throw new Error(`${what} exited ${res.code}${res.signal ? ` (${res.signal})` : ''}: ${(res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ')}`)
  }
  return res
}

// GET / on 127.0.0.1 over a fresh connection; resolves the body.
function httpGet (port, { timeout = 2000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false, timeout }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => res.statusCode === 200 ? resolve(body) : reject(new Error(`status ${res.statusCode}`)))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
  })
}

function kill (pid, signal = 'SIGKILL') {
  try { process.kill(pid, signal) } catch {}
}

// Resident memory of a pid in bytes (VmRSS), or 0 when it is gone.
function rss (pid) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

// Bytes of a pid's memory no other process shares (USS: private clean + private dirty pages,
// /proc/<pid>/smaps_rollup). RSS also counts the pages of the node binary that every Node
// process maps, the apps' included; this is what the process itself adds.
function uss (pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    let kb = 0
    for (const m of text.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)) kb += Number(m[1])
    return kb * 1024
  } catch {
    return 0
  }
}

// CPU seconds (user + system) a pid has used so far.
function cpuSeconds (pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

// CPU time (ms) all threads of a pid have used so far, at nanosecond resolution (the first field
// of each thread's schedstat): an idle daemon uses a few clock ticks a minute, too few to count
// with the 10 ms ticks of /proc/<pid>/stat.
function cpuMs (pid) {
  let ns = 0
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try { ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) } catch {}
  }
  return ns / 1e6
}

// When a pid's process started (clock ticks since boot, /proc/<pid>/stat field 22), or null when
// there is none: with the pid, what names one process. A long bench recycles pids (pid_max is
// 32,768 here), so a pid seen an hour ago may now be someone else's process.
function startTimeOf (pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return null
  }
}

function children (pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

// Every descendant of pid, depth first.
function descendants (pid) {
  const out = []
  for (const c of children(pid)) out.push(c, ...descendants(c))
  return out
}

module.exports = { benchEnv, UNSET_ENV, run, runOk, waitFor, freePort, httpGet, isAlive, kill, rss, uss, cpuSeconds, cpuMs, startTimeOf, children, descendants, delay }
