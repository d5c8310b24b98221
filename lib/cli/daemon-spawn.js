'use strict'

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: delay } = require('node:timers/promises')
const { XpmError } = require('../shared/errors')

const DAEMON_ENTRY = path.join(__dirname, '..', '..', 'daemon', 'index.js')

// Starts a detached daemon (its own session, stdio to a file) and waits until its socket
// answers. Two CLIs may both get here at once: the daemons race for the lock and the loser
// exits, so both CLIs end up talking to the same one.
// A mistyped XPM_METRICS (the daemon's Prometheus address, read once at its start) is refused
// here, exit 2, before any daemon exists: the daemon itself would only log it and serve nothing.
// env: the CLI's environment, which the daemon inherits.
async function startDaemon (paths, { timeout = 10000, env: cliEnv = process.env } = {}) {
  require('../shared/metrics-address').parseMetricsAddress(cliEnv.XPM_METRICS, { from: 'XPM_METRICS' })
  const { ensureSafeHome, openAppendNoFollowSync } = require('../shared/safe-fs')
  ensureSafeHome(paths.home, { create: true })
  const out = openAppendNoFollowSync(paths.daemonStdio)
  // A CLI run by an app (a deploy script under xpm) carries that app's tree tags: the daemon it
  // starts must not, or it would count as a leftover of that app (lib/shared/tree-tag.js).
  const env = { ...require('../shared/internal-env').withoutInternals(cliEnv), XPM_HOME: paths.home }
  const { daemonNodeFlags } = require('./daemon-node-flags')
  const child = spawn(process.execPath, [...daemonNodeFlags(), DAEMON_ENTRY], {
    detached: true,
    stdio: ['ignore', out, out],
    env,
    cwd: paths.home
  })
  fs.closeSync(out)
  child.unref()
  // A daemon that exits non-zero before it answers (an unsafe logs folder, say) fails the
  // command at once with its own words; exit 0 means it lost the lock to another one: wait on.
  let failed = null
  child.once('exit', (code) => {
    if (code) failed = new XpmError('XPM_ERR_DAEMON_UNREACHABLE', `The xpm daemon exited with code ${code} at start-up: ${lastLine(paths.daemonStdio)}`)
  })
  await waitForSocket(paths, { timeout, failed: () => failed })
}

function lastLine (file) {
  try {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n')
    return lines[lines.length - 1].replace(/^xpm daemon failed to start: /, '')
  } catch {
    return `see ${file}`
  }
}

// Resolves once the daemon's socket answers; polls the socket (the one thing to wait on for a
// daemon that is still starting), bounded by the deadline.
async function waitForSocket (paths, { timeout = 10000, failed = () => null } = {}) {
  const deadline = Date.now() + timeout
  let lastError
  while (Date.now() < deadline) {
    try {
      await answers(paths.socket, Math.max(100, deadline - Date.now()))
      return
    } catch (err) {
      lastError = err
    }
    if (failed()) throw failed()
    await delay(25) // polling the socket for a condition, bounded by the deadline
  }
  throw new XpmError('XPM_ERR_DAEMON_UNREACHABLE',
    `The xpm daemon did not start within ${timeout} ms (${lastError?.details?.reason || lastError?.code || 'no answer'}); see ${paths.daemonStdio}`)
}

// Resolves once a daemon on socketPath sends its first bytes (the hello). The caller then
// connects with lib/cli/client.js, which checks the hello itself (protocol version included);
// this module does not load the client, so the two do not require each other.
function answers (socketPath, timeout) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath)
    const done = (err) => {
      clearTimeout(timer)
      socket.destroy()
      err ? reject(err) : resolve()
    }
    const timer = setTimeout(() => done(new XpmError('XPM_ERR_TIMEOUT', `no hello from the daemon within ${timeout} ms`, { details: { reason: 'ETIMEDOUT' } })), timeout)
    socket.once('data', () => done())
    socket.once('error', done)
    socket.once('end', () => done(new XpmError('XPM_ERR_DAEMON_UNREACHABLE', 'the daemon closed the connection', { details: { reason: 'ECONNRESET' } })))
  })
}

module.exports = { startDaemon, waitForSocket }
