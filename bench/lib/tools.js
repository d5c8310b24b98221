'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { runOk, run } = require('./util')

// PM2 and autocannon live in a temp folder, installed on demand and reused by later runs;
// they are never dependencies of the repo. --fresh-tools installs them again.
const DEFAULT_DIR = path.join(os.tmpdir(), 'xpm-bench-tools')
const PACKAGES = ['pm2', 'autocannon']

async function ensureTools ({ dir = DEFAULT_DIR, fresh = false, log = () => {} } = {}) {
  if (fresh) fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const missing = PACKAGES.filter((p) => !fs.existsSync(path.join(dir, 'node_modules', p, 'package.json')))
  if (missing.length) {
    log(`installing ${missing.join(', ')} into ${dir}`)
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    // npm keeps the caller's whole environment: a registry behind a TLS-intercepting proxy needs
    // the NODE_EXTRA_CA_CERTS that the benchmarked processes run without.
    await runOk(npm, ['install', '--prefix', dir, ...missing.map((p) => `${p}@latest`), '--no-audit', '--no-fund', '--no-save'], { env: process.env, timeout: 300000 })
  }
  const version = (p) => JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', p, 'package.json'), 'utf8')).version
  const wrk = (await run('wrk', ['--version'], { timeout: 5000 })).stdout.match(/wrk (\S+)/)?.[1] || null
  return {
    dir,
    pm2: version('pm2'),
    autocannon: version('autocannon'),
    autocannonBin: path.join(dir, 'node_modules', 'autocannon', 'autocannon.js'),
    wrk
  }
}

module.exports = { ensureTools, DEFAULT_DIR }
