'use strict'

// One ssh connection to a host that many bridges ride, for `xpm web --hosts` (lib/cli/commands/web.js):
// the dashboard needs several daemon connections per host at once (a `logs` follow ends only
// with its connection, an action's progress events are its connection's), and each would
// otherwise be an ssh login of its own. A master (ControlMaster=yes) holds the one connection; every `xpm bridge` (connect.js) is a channel over it (ControlMaster=no, the same
// ControlPath), so the host sees one login and its daemon a few local clients. The control socket
// is in a folder of this process's own (0700), removed on close; it lets whoever can open it run
// commands as the ssh user on the host, as that user's ssh keys and agent already do.
// ServerAliveInterval: a host gone without a word (powered off, partitioned) is seen within ~15 s,
// when the master exits and every channel with it. The master's own session reads its stdin, a
// pipe from this process: when this process ends, however it ends, the session ends and the master
// with it (`ssh -N` would outlive a dashboard killed with SIGKILL).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { XpmError } = require('../../shared/errors')
const { connectHost } = require('./connect')

const MASTER_TIMEOUT = 20000
const ALIVE = ['ServerAliveInterval=5', 'ServerAliveCountMax=3']

class SharedSsh {
  // host: a resolved host (hosts.js); dir: the private folder of the control sockets
  constructor (host, { env = process.env, dir, timeout = MASTER_TIMEOUT }) {
    Object.assign(this, { host, env, timeout })
    this.controlPath = path.join(dir, `${String(host.label).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}.sock`)
    this.master = null // { child, ready: Promise }
    this.closed = false
  }

  withOptions (extra) {
    return { ...this.host, ssh_options: [...(this.host.ssh_options || []), `ControlPath=${this.controlPath}`, ...extra] }
  }

  // → a lib/cli/client.js Client of the host's daemon, over the shared connection
  async connect () {
    if (this.closed) throw new XpmError('XPM_ERR_HOST_UNREACHABLE', `${this.host.label}: the dashboard is closing`, { details: { host: this.host.label } })
    await this.open()
    return connectHost(this.withOptions(['ControlMaster=no']), { env: this.env })
  }

  open () {
    const m = this.master
    if (m && m.child.exitCode === null && m.child.signalCode === null) return m.ready
    const { sshArgs, withSsh } = require('../deploy/ssh')
    const args = [...sshArgs(this.withOptions(['ControlMaster=yes', ...ALIVE]), this.env), 'cat >/dev/null']
    const [cmd, argv] = withSsh(args, this.env)
    const child = spawn(cmd, argv, { stdio: ['pipe', 'ignore', 'pipe'], env: this.env })
    child.stdin.on('error', () => {})
    let stderr = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000) })
    const exited = new Promise((resolve) => child.once('close', resolve))
    child.once('error', () => {})
    const ready = this.waitForSocket(child, exited, () => stderr)
    this.master = { child, ready }
    ready.catch(() => {})
    return ready
  }

  async waitForSocket (child, exited, stderr) {
    const label = this.host.label
    const deadline = Date.now() + this.timeout
    let gone = false
    exited.then(() => { gone = true })
    for (;;) {
      if (gone || this.closed) {
        const why = stderr().trim().split('\n').slice(-3).join(' / ')
        throw new XpmError('XPM_ERR_HOST_UNREACHABLE', `${label}: ssh ended (exit ${child.exitCode ?? child.signalCode})${why ? `: ${why}` : ''}`, { details: { host: label } })
      }
      if (await fs.promises.stat(this.controlPath).then((s) => s.isSocket(), () => false)) return
      if (Date.now() > deadline) {
        this.stopMaster()
        throw new XpmError('XPM_ERR_HOST_UNREACHABLE', `${label}: no ssh connection within ${this.timeout / 1000} s`, { details: { host: label } })
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  // its input closed first: the end of its session's input ends the remote `cat`, then the
  // master, also where a signal would not reach it
  stopMaster () {
    const child = this.master?.child
    if (!child) return
    child.stdin.destroy()
    if (child.exitCode === null && child.signalCode === null) try { child.kill('SIGTERM') } catch {}
  }

  // Ends the shared connection and with it every channel (the host's bridges end with them).
  close () {
    this.closed = true
    this.stopMaster()
  }
}

// A private folder for the control sockets of one dashboard, and the hosts' shared connections.
function openShared (hosts, { env = process.env } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-ssh-'))
  fs.chmodSync(dir, 0o700)
  const shared = hosts.map((host) => new SharedSsh(host, { env, dir }))
  return {
    shared,
    close () {
      for (const s of shared) s.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

module.exports = { SharedSsh, openShared, MASTER_TIMEOUT }
