'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { Contender, NotApplicable } = require('./contender')
const { benchEnv, children, isAlive, kill, waitFor } = require('./util')

const PRIMARY = path.join(__dirname, '..', 'apps', 'raw-cluster.js')

// The baseline: one bare node:cluster primary per app (bench/apps/raw-cluster.js), or plain
// `node app.js > file` for fork mode. No daemon, no CLI.
class Raw extends Contender {
  constructor () {
    super('raw')
    this.apps = new Map()
  }

  version () { return process.version }

  async start (app) {
    const out = fs.openSync(path.join(this.logsDir(), `${app.name}-out.log`), 'a')
    const args = app.instances ? [PRIMARY, app.script, String(app.instances)] : [app.script]
    const child = spawn(process.execPath, args, { env: benchEnv(app.env), stdio: ['ignore', out, 'ignore'] })
    fs.closeSync(out)
    this.track(child.pid)
    this.apps.set(app.name, child)
    return { child }
  }

  async ping () { throw new NotApplicable('no daemon') }
  async list () { throw new NotApplicable('no CLI') }
  async reload () { throw new NotApplicable('no reload') }

  async remove (name) {
    const child = this.apps.get(name)
    if (!child) return
    this.apps.delete(name)
    const pids = [child.pid, ...children(child.pid)]
    this.track(...pids)
    kill(child.pid, 'SIGTERM')
    await waitFor(() => pids.every((p) => !isAlive(p)), { timeout: 5000 }).catch(() => {})
    for (const p of pids) kill(p, 'SIGKILL')
  }

  primaryPid (name) { return this.apps.get(name)?.pid || 0 }

  async workerPids (name) {
    const pid = this.primaryPid(name)
    const workers = children(pid)
    this.track(...workers)
    return workers
  }

  daemonPid () { return 0 }

  logsDir () {
    const dir = path.join(this.home, 'logs')
    fs.mkdirSync(dir, { recursive: true })
    return dir
  }

  monitCommand () { throw new NotApplicable('no dashboard') }

  async kill () {
    for (const name of [...this.apps.keys()]) await this.remove(name)
    await this.reap()
  }
}

module.exports = { Raw }
