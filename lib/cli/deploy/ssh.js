'use strict'

const os = require('node:os')
const { spawn } = require('node:child_process')

// The system's ssh (or XPM_SSH, a command line used in its place as git's GIT_SSH_COMMAND) and
// local shell commands, spawned with their output split into lines for the host's prefix.

const TAIL = 15 // the lines of output kept for an error message

// `~/` is the home of who deploys (HOME of the CLI's environment)
const expandHome = (file, env) => (file.startsWith('~/') ? (env.HOME || os.homedir()) + file.slice(1) : file)

// ssh's arguments for a host, in pm2 deploy's order: options, -t, -A, -p, -i, then user@host.
// reuse: the run's connection sharing (ssh-reuse.js), or none.
function sshArgs (host, env = process.env, reuse = null) {
  const args = []
  for (const option of host.ssh_options) args.push('-o', option)
  if (reuse) args.push(...reuse.optionsFor(host))
  if (!host.ssh_options.some((o) => /^ConnectTimeout\b/i.test(o))) args.push('-o', 'ConnectTimeout=10')
  if (host.tty) args.push('-t')
  if (host.forwardAgent) args.push('-A')
  if (host.port) args.push('-p', host.port)
  if (host.key) args.push('-i', expandHome(host.key, env))
  args.push(host.user ? `${host.user}@${host.host}` : host.host)
  return args
}

// [command, args] that run `script` on the host.
function sshCommand (host, script, env = process.env, reuse = null) {
  return withSsh([...sshArgs(host, env, reuse), script], env)
}

// [command, args] that end the host's shared connection (ssh -O exit before the destination).
function sshExit (host, env = process.env, reuse) {
  const args = sshArgs(host, env, reuse)
  return withSsh([...args.slice(0, -1), '-O', 'exit', args[args.length - 1]], env)
}

// [command, args] that run ssh (or XPM_SSH, through sh, which execs it: a signal to the child
// reaches ssh itself) with args.
function withSsh (args, env = process.env) {
  if (env.XPM_SSH) return ['sh', ['-c', `exec ${env.XPM_SSH} "$@"`, 'ssh', ...args]]
  return ['ssh', args]
}

// What a printed plan shows for it: the ssh line, script quoted.
function showSsh (host, shownScript, env = process.env) {
  const { q } = require('./remote-script')
  return `${env.XPM_SSH || 'ssh'} ${sshArgs(host, env).map(q).join(' ')} ${q(shownScript)}`
}

// A local command, run as pm2 deploy runs pre-deploy-local: by bash when there is one.
function localCommand (command) {
  return [require('node:fs').existsSync('/bin/bash') ? '/bin/bash' : 'sh', ['-c', command]]
}

// Runs [cmd, args]: onLine(line, stream) for each line of output; input: text for its stdin.
// Resolves { code, stdout, tail } (tail: the last lines of both streams); a command that cannot
// be started resolves with code 127 and `missing` set. signal: an AbortSignal ending it (SIGTERM).
function run ([cmd, args], { onLine = () => {}, input = null, env = process.env, cwd, signal } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'], env, cwd })
    const tail = []
    let stdout = ''
    let failed = null
    const onAbort = () => { try { child.kill('SIGTERM') } catch {} }
    signal?.addEventListener('abort', onAbort, { once: true })
    const lines = (stream, name) => {
      let rest = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => {
        if (name === 'stdout') stdout += chunk
        const parts = (rest + chunk).split('\n')
        rest = parts.pop()
        for (const line of parts) emit(line, name)
      })
      stream.on('end', () => { if (rest) emit(rest, name) })
    }
    const emit = (line, name) => {
      line = line.replace(/\r$/, '')
      tail.push(line)
      if (tail.length > TAIL) tail.shift()
      onLine(line, name)
    }
    lines(child.stdout, 'stdout')
    lines(child.stderr, 'stderr')
    if (input !== null) {
      child.stdin.on('error', () => {})
      child.stdin.end(input)
    }
    child.on('error', (err) => { failed = err })
    child.on('close', (code, sig) => {
      signal?.removeEventListener('abort', onAbort)
      if (failed) return resolve({ code: 127, stdout, tail, missing: failed.code === 'ENOENT' ? cmd : null, error: failed })
      resolve({ code: code ?? 128, signal: sig, stdout, tail })
    })
  })
}

// Why ssh itself failed (exit 255), and what to do about it, from its last lines.
function sshTrouble (tail, host) {
  const text = tail.join('\n')
  const where = `${host.host}${host.port ? ` port ${host.port}` : ''}`
  if (/Connection refused|No route to host|Connection timed out|timed out|Network is unreachable|Could not resolve hostname|Name or service not known/i.test(text)) {
    return `host unreachable: ssh could not connect to ${where} — check host and port, and that sshd runs there`
  }
  if (/Permission denied \(/i.test(text)) return `key refused by ${where} — check \`key\`, your ssh agent, and the host's authorized_keys for ${host.user || 'your user'}`
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(text)) return `host key of ${where} not trusted — connect once with ssh to check it, or set ssh_options`
  return `ssh to ${where} failed`
}

module.exports = { sshArgs, sshCommand, sshExit, withSsh, showSsh, localCommand, run, sshTrouble, TAIL }
