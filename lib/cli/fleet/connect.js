'use strict'

// One host's connection: the system's ssh (or XPM_SSH) running `xpm bridge` on the host, whose
// stdin/stdout carry the daemon socket's protocol unchanged (lib/shared/protocol.js). The other
// end is a lib/cli/client.js Client, so every request a command makes locally works the same
// over ssh: ids, deadlines, pushed events, and many requests at once on the one connection.
const { spawn } = require('node:child_process')
const { EventEmitter } = require('node:events')
const { Client } = require('../client')
const { PROTOCOL_VERSION } = require('../../shared/protocol')
const { XpmError } = require('../../shared/errors')

const CONNECT_TIMEOUT = 20000 // ssh's own ConnectTimeout is 10 s; then the remote daemon may start
const STDERR_TAIL = 15
const VERSION = require('../../../package.json').version

// The command line the host's shell runs: the bridge with the host's env (XPM_HOME, PATH…);
// `xpm` from the session's PATH, else from its login shell's (nvm and friends set it there).
function remoteCommand (host, env = process.env) {
  const { q, exportEnv } = require('../deploy/remote-script')
  const exported = exportEnv(host.bridgeEnv)
  const prefix = exported ? `${exported}; ` : ''
  if (env.XPM_REMOTE_BIN) return `${prefix}exec ${q(env.XPM_REMOTE_BIN)} bridge`
  const inner = 'command -v xpm >/dev/null 2>&1 && exec xpm bridge; echo "xpm: command not found" >&2; exit 127'
  return `${prefix}if command -v xpm >/dev/null 2>&1; then exec xpm bridge; fi; exec "\${SHELL:-/bin/sh}" -lc ${q(inner)}`
}

// [command, args] of the host's ssh: deploy's line (lib/cli/deploy/ssh.js), no tty, and keep-alives
// unless ssh_options set them, so a host that vanishes without a word (no FIN) is noticed within
// 45 s, also by a command that only listens (`logs`).
function sshLine (host, env = process.env) {
  const { sshCommand } = require('../deploy/ssh')
  const alive = host.ssh_options.some((o) => /^ServerAlive/i.test(o)) ? [] : ['ServerAliveInterval=15', 'ServerAliveCountMax=3']
  return sshCommand({ ...host, tty: false, ssh_options: [...host.ssh_options, ...alive] }, remoteCommand(host, env), env)
}

// The ssh child as the socket a Client reads and writes.
class SshStream extends EventEmitter {
  constructor (child) {
    super()
    this.child = child
    this.stderr = []
    child.stdin.on('error', () => {})
    child.stdout.on('data', (chunk) => this.emit('data', chunk))
    let rest = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (text) => {
      const lines = (rest + text).split('\n')
      rest = lines.pop().slice(-4096)
      for (const line of lines) this.keep(line)
    })
    child.stderr.on('end', () => { if (rest) this.keep(rest) })
    child.on('error', (err) => { this.spawnError = err })
    child.on('close', (code, signal) => {
      this.code = code
      this.signal = signal
      this.emit('close')
    })
  }

  keep (line) {
    line = line.replace(/\r$/, '')
    if (!line.trim()) return
    this.stderr.push(line.slice(0, 1000))
    if (this.stderr.length > STDERR_TAIL) this.stderr.shift()
  }

  write (line) { return this.child.stdin.write(line) }
  end () { this.child.stdin.end() }
  // stdin closed first: the end of its input ends the bridge on the host too, also through a
  // wrapper of XPM_SSH's that a signal would not reach
  destroy () {
    this.child.stdin.destroy()
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM')
  }
}

// 0.x versions are compatible within a minor (0.3.1 and 0.3.9), later ones within a major.
function compatible (a, b) {
  const [ma, mi] = String(a).split('.')
  const [mb, mj] = String(b).split('.')
  return ma === mb && (ma !== '0' || mi === mj)
}

// Resolves a Client once the host's daemon said hello; rejects with a message naming the host.
function connectHost (host, { env = process.env, timeout = CONNECT_TIMEOUT } = {}) {
  const [cmd, args] = sshLine(host, env)
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env })
  const stream = new SshStream(child)
  const client = new Client(stream)
  client.host = host
  client.stderrTail = () => stream.stderr.slice()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      fail(new XpmError('XPM_ERR_HOST_UNREACHABLE', `${host.label}: no answer from xpm within ${timeout / 1000} s${tail(stream)}`, { details: { host: host.label } }))
    }, timeout)
    const fail = (err) => {
      clearTimeout(timer)
      client.off('hello', hello)
      client.off('close', closed)
      stream.destroy()
      reject(err)
    }
    const closed = () => fail(whyClosed(host, stream, env))
    const hello = (data) => {
      if (data?.protocol !== PROTOCOL_VERSION || !compatible(data?.version, VERSION)) {
        client.close()
        return fail(new XpmError('XPM_ERR_PROTOCOL_VERSION',
          `${host.label} runs xpm ${data?.version} (protocol ${data?.protocol}); this xpm is ${VERSION} (protocol ${PROTOCOL_VERSION}): install the same version on both (npm install -g xpm@${VERSION})`,
          { details: { host: host.label, remote: data?.version, local: VERSION } }))
      }
      clearTimeout(timer)
      client.off('close', closed)
      resolve(client)
    }
    client.once('hello', hello)
    client.once('close', closed)
  })
}

const tail = (stream) => (stream.stderr.length ? `: ${stream.stderr.slice(-3).join(' / ')}` : '')

// Why the connection ended before the hello, from ssh's exit code and last lines.
function whyClosed (host, stream, env) {
  const details = { host: host.label, code: stream.code, stderr: stream.stderr }
  if (stream.spawnError) {
    return new XpmError('XPM_ERR_HOST_UNREACHABLE', `${host.label}: could not run ssh (${stream.spawnError.code || stream.spawnError.message}); install openssh-client or set XPM_SSH`, { details })
  }
  if (stream.code === 127 || stream.stderr.some((l) => /xpm: (command )?not found|xpm: No such file/.test(l))) {
    const where = env.XPM_REMOTE_BIN ? `nothing runs at XPM_REMOTE_BIN=${env.XPM_REMOTE_BIN} there` : 'not on the PATH of its login shell'
    return new XpmError('XPM_ERR_REMOTE_XPM_MISSING',
      `${host.label}: xpm is not installed there (${where}): install it on ${host.host} (npm install -g xpm@${VERSION}), or set XPM_REMOTE_BIN to its path`, { details })
  }
  if (stream.code === 255) {
    const { sshTrouble } = require('../deploy/ssh')
    return new XpmError('XPM_ERR_HOST_UNREACHABLE', `${host.label}: ${sshTrouble(stream.stderr, host)}${tail(stream)}`, { details })
  }
  return new XpmError('XPM_ERR_HOST_UNREACHABLE', `${host.label}: \`xpm bridge\` ended (exit ${stream.code ?? stream.signal}) before its daemon answered${tail(stream)}`, { details })
}

module.exports = { connectHost, sshLine, remoteCommand, compatible, CONNECT_TIMEOUT }
