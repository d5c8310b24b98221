'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: delay } = require('node:timers/promises')
const { XpmError } = require('./errors')

const DAEMON_ENTRY = path.join(__dirname, '..', 'daemon', 'index.js')

// Starts a detached daemon (its own session, stdio to a file) and waits until its socket
// answers. Two CLIs may both get here at once: the daemons race for the lock and the loser
// exits, so both CLIs end up talking to the same one.
async function startDaemon (paths, { timeout = 10000 } = {}) {
  fs.mkdirSync(paths.home, { recursive: true, mode: 0o700 })
  const out = fs.openSync(paths.daemonStdio, 'a', 0o600)
  const child = spawn(process.execPath, [DAEMON_ENTRY], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, XPM_HOME: paths.home },
    cwd: paths.home
  })
  fs.closeSync(out)
  child.unref()

  const { connectOnce } = require('./client')
  const deadline = Date.now() + timeout
  let lastError
  while (Date.now() < deadline) {
    try {
      const client = await connectOnce(paths.socket, { timeout: Math.max(100, deadline - Date.now()) })
      client.close()
      return
    } catch (err) {
      if (err instanceof XpmError) throw err
      lastError = err
    }
    await delay(25) // polling the socket for a condition, bounded by the deadline
  }
  throw new XpmError('XPM_ERR_DAEMON_UNREACHABLE',
    `The xpm daemon did not start within ${timeout} ms (${lastError?.code || 'no answer'}); see ${paths.daemonStdio}`)
}

module.exports = { startDaemon }
