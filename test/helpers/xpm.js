'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { execFile } = require('node:child_process')
const { isAlive } = require('../../lib/shared/pid')
const { waitFor, freePort, delay } = require('./wait')

const ROOT = path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'xpm')
const FIXTURES = path.join(ROOT, 'test', 'fixtures')

// A private XPM_HOME with helpers bound to it. cleanup() stops the daemon and every process
// it started, by pid, and removes the folder. inProcess: run() runs the CLI in this process
// (helpers/cli.js) instead of spawning bin/xpm for each command; the daemon is real either way.
// XPM_TEST_SPAWN_CLI=1 spawns bin/xpm for every test all the same (the end-to-end way).
function createHome (t, { inProcess = false } = {}) {
  if (process.env.XPM_TEST_SPAWN_CLI === '1') inProcess = false
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-test-'))
  const env = { ...process.env, XPM_HOME: home, FORCE_COLOR: '0' }
  delete env.NODE_TEST_CONTEXT
  const seenPids = new Set()

  const run = inProcess
    ? require('./cli').inProcessRunner(env)
    : (args, opts = {}) => runXpm(args, { env: { ...env, ...opts.env }, cwd: opts.cwd, timeout: opts.timeout, input: opts.input })
  const jlist = async () => {
    const res = await run(['jlist'])
    if (res.code !== 0) throw new Error(`jlist failed: ${res.stderr}`)
    const list = JSON.parse(res.stdout)
    for (const p of list) if (p.pid) seenPids.add(p.pid)
    return list
  }
  const daemonPid = () => {
    try { return Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8')) } catch { return 0 }
  }

  const cleanup = async () => {
    const pid = daemonPid()
    // the pid file of a daemon in a PID namespace (xpm-runtime as PID 1) holds its number there:
    // only a process started with this home is ever signalled
    if (pid && isAlive(pid) && hasHome(pid, home)) {
      try { for (const p of await jlist()) if (p.pid) seenPids.add(p.pid) } catch {}
      try { process.kill(pid, 'SIGTERM') } catch {}
      await waitFor(() => !isAlive(pid), { timeout: 15000 }).catch(() => {})
      if (isAlive(pid)) try { process.kill(pid, 'SIGKILL') } catch {}
    }
    for (const p of seenPids) if (isAlive(p)) try { process.kill(p, 'SIGKILL') } catch {}
    // A test that failed half-way (say, during a daemon hand-over) may have left a daemon the pid
    // file does not name: anything started with this XPM_HOME goes too, by pid.
    for (const p of pidsWithHome(home)) try { process.kill(p, 'SIGKILL') } catch {}
    fs.rmSync(home, { recursive: true, force: true })
  }
  if (t) t.after(cleanup)
  return { home, env, run, jlist, daemonPid, cleanup, track: (pid) => seenPids.add(pid) }
}

function runXpm (args, { env = process.env, cwd = ROOT, timeout = 60000, input } = {}) {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env, cwd, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, signal: err?.signal })
    })
    if (input !== undefined) child.stdin.end(input)
    else child.stdin.end()
  })
}

// Processes whose environment names this XPM_HOME (Linux /proc; elsewhere none are found).
function hasHome (pid, home) {
  try { return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`XPM_HOME=${home}\0`) } catch { return false }
}

function pidsWithHome (home) {
  const needle = `XPM_HOME=${home}\0`
  const found = []
  let entries = []
  try { entries = fs.readdirSync('/proc') } catch { return found }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) found.push(Number(entry))
    } catch {}
  }
  return found
}

// GET on 127.0.0.1 with a fresh connection; resolves { status, body, json }.
function httpGet (port, pathname = '/', { agent = false, timeout = 5000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, agent, timeout }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => {
        let json = null
        try { json = JSON.parse(body) } catch {}
        resolve({ status: res.statusCode, body, json })
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
  })
}

function fixture (name) {
  return path.join(FIXTURES, name)
}

module.exports = { createHome, runXpm, isAlive, waitFor, freePort, httpGet, fixture, ROOT, BIN, delay }
