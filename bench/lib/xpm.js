'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { Contender } = require('./contender')
const { benchEnv, run, runOk, isAlive, waitFor } = require('./util')

// XPM_BENCH_ROOT=<checkout> benchmarks another copy of xpm (e.g. `git archive HEAD` unpacked next
// to this working tree, with a node_modules); the default is this repository.
const ROOT = process.env.XPM_BENCH_ROOT ? path.resolve(process.env.XPM_BENCH_ROOT) : path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'xpm')

// xpm driven through its real CLI (bin/xpm), with a private XPM_HOME. root: another copy of xpm
// (a measure comparing this tree with an earlier commit in one run), name: what it is called then.
class Xpm extends Contender {
  constructor ({ root = ROOT, name = 'xpm' } = {}) {
    super(name)
    this.root = root
    this.bin = path.join(root, 'bin', 'xpm')
    this.env = benchEnv({ XPM_HOME: this.home, FORCE_COLOR: '0' })
    this.extraStartArgs = process.env.XPM_BENCH_NO_METRICS === '1' ? ['--no-metrics'] : []
  }

  cli (args, opts = {}) {
    return run(process.execPath, [this.bin, ...args], { env: { ...this.env, ...opts.env }, cwd: this.root, timeout: opts.timeout })
  }

  cliOk (args, opts = {}) {
    return runOk(process.execPath, [this.bin, ...args], { env: { ...this.env, ...opts.env }, cwd: this.root, timeout: opts.timeout })
  }

  version () {
    return require(path.join(this.root, 'package.json')).version
  }

  // app: { name, script, instances (0 = fork mode), env }
  async start (app) {
    const args = ['start', app.script, '--name', app.name, ...this.extraStartArgs]
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
    const list = JSON.parse((await this.cliOk(['jlist'])).stdout)
    for (const p of list) this.track(p.pid)
    return list
  }

  // Rows with the fields a poll needs (id, name, pid, status, uptime, restarts), without the
  // agents' figures a `jlist` returns and so without waking every agent (xpm-rows.js).
  async statusRows () {
    const list = JSON.parse((await runOk(process.execPath, [path.join(__dirname, 'xpm-rows.js'), ROOT], { env: this.env, cwd: ROOT })).stdout)
    for (const p of list) this.track(p.pid)
    return list
  }

  async workerPids (name) {
    return (await this.jlist()).filter((p) => p.name === name && p.status === 'online' && p.pid).map((p) => p.pid)
  }

  daemonPid () {
    try { return Number(fs.readFileSync(path.join(this.home, 'daemon.pid'), 'utf8')) || 0 } catch { return 0 }
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

module.exports = { Xpm, BIN, ROOT }
