'use strict'

// PM2 7 itself, for the tests that check xpm against it: installed once with npm into
// <tmpdir>/xpm-test-pm2-7 (kept, so later runs reuse it), run by this Node with a PM2_HOME of the
// test's own, and every process of that PM2_HOME killed by pid afterwards (the pm2 CLI starts
// its daemon for any command, deploy included).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile, execFileSync } = require('node:child_process')
const { isAlive } = require('../../lib/shared/pid')
const { waitFor } = require('./wait')

const PREFIX = path.join(os.tmpdir(), 'xpm-test-pm2-7')
const BIN = path.join(PREFIX, 'node_modules', 'pm2', 'bin', 'pm2')

function installed () {
  try { return JSON.parse(fs.readFileSync(path.join(PREFIX, 'node_modules', 'pm2', 'package.json'), 'utf8')).version.startsWith('7.') } catch { return false }
}

// The pm2 binary's path, or { skip: reason } when npm could not install it (no registry here).
function ensurePm2 ({ timeout = 180000 } = {}) {
  if (installed()) return { bin: BIN }
  try {
    fs.mkdirSync(PREFIX, { recursive: true })
    execFileSync('npm', ['install', '--prefix', PREFIX, '--no-audit', '--no-fund', '--no-save', 'pm2@7'], { stdio: 'pipe', timeout, encoding: 'utf8' })
  } catch (err) {
    const lines = String(err.stderr || err.message).trim().split('\n').filter((l) => !/complete log of this run/.test(l))
    const why = lines.find((l) => /\bcode\b|ECONN|ENOTFOUND|ETIMEDOUT|EAI_AGAIN/.test(l)) || lines.pop() || `exit ${err.status}`
    return { skip: `pm2@7 could not be installed with npm (is the registry reachable?): ${why}` }
  }
  return installed() ? { bin: BIN } : { skip: 'pm2@7 was not found after npm install' }
}

// A runner of `pm2 …` in cwd with its own PM2_HOME; cleanup() kills the processes it left.
function pm2Runner (bin, { home, cwd, timeout = 60000 }) {
  // pm2 deploy appends to /tmp/pm2-deploy-$USER.log: a name of this run's own, removed after
  const user = `xpm-test-${process.pid}`
  const env = { ...process.env, PM2_HOME: home, USER: user, FORCE_COLOR: '0' }
  const run = (...args) => new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env, timeout }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
  const cleanup = async () => {
    const pids = pidsWithEnv(`PM2_HOME=${home}`)
    for (const pid of pids) try { process.kill(pid, 'SIGKILL') } catch {}
    await waitFor(() => pids.every((pid) => !isAlive(pid)), { timeout: 5000, message: 'pm2\'s processes gone' })
    fs.rmSync(`/tmp/pm2-deploy-${user}.log`, { force: true })
  }
  return { run, cleanup }
}

// Processes (not this one) whose environment holds `needle` (Linux /proc).
function pidsWithEnv (needle) {
  const found = []
  let entries = []
  try { entries = fs.readdirSync('/proc') } catch { return found }
  for (const entry of entries) {
    const pid = Number(entry)
    if (!pid || pid === process.pid) continue
    try { if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle)) found.push(pid) } catch {}
  }
  return found
}

module.exports = { ensurePm2, pm2Runner, pidsWithEnv }
