'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { Contender } = require('./contender')
const { benchEnv, run, runOk, isAlive, waitFor } = require('./util')

// PM2 from the temp tools folder, with a private PM2_HOME; never the user's ~/.pm2.
class Pm2 extends Contender {
  constructor ({ toolsDir }) {
    super('pm2')
    this.bin = path.join(toolsDir, 'node_modules', 'pm2', 'bin', 'pm2')
    this.pkg = path.join(toolsDir, 'node_modules', 'pm2', 'package.json')
    this.env = benchEnv({ PM2_HOME: this.home, FORCE_COLOR: '0', PM2_DISCRETE_MODE: 'true' })
  }

  cli (args, opts = {}) {
    return run(process.execPath, [this.bin, ...args], { env: { ...this.env, ...opts.env }, timeout: opts.timeout })
  }

  cliOk (args, opts = {}) {
    return runOk(process.execPath, [this.bin, ...args], { env: { ...this.env, ...opts.env }, timeout: opts.timeout })
  }

  version () {
    return JSON.parse(fs.readFileSync(this.pkg, 'utf8')).version
  }

  async start (app) {
    const args = ['start', app.script, '--name', app.name]
    if (app.instances) args.push('-i', String(app.instances))
    const res = await this.cliOk(args, { env: app.env })
    this.track(this.daemonPid())
    return res
  }

  ping () { return this.cliOk(['ping']) }
  list () { return this.cliOk(['list']) }
  reload (name) { return this.cliOk(['reload', name]) }
  remove (name) { return this.cliOk(['delete', name]) }

  async jlist () {
    const out = (await this.cliOk(['jlist'])).stdout
    const list = JSON.parse(out.slice(out.indexOf('[')))
    for (const p of list) this.track(p.pid)
    return list
  }

  async workerPids (name) {
    return (await this.jlist()).filter((p) => p.name === name && p.pm2_env?.status === 'online' && p.pid).map((p) => p.pid)
  }

  daemonPid () {
    try { return Number(fs.readFileSync(path.join(this.home, 'pm2.pid'), 'utf8')) || 0 } catch { return 0 }
  }

  logsDir () { return path.join(this.home, 'logs') }

  monitCommand () { return [process.execPath, this.bin, 'monit'] }

  async kill () {
    const pid = this.daemonPid()
    if (!pid || !isAlive(pid)) return
    try { await this.jlist() } catch {}
    await this.cli(['kill'], { timeout: 20000 })
    await waitFor(() => !isAlive(pid), { timeout: 5000 }).catch(() => {})
    await this.reap()
  }
}

module.exports = { Pm2 }
