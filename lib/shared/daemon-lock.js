'use strict'

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const crypto = require('node:crypto')

// One daemon per XPM_HOME. The lock is the folder XPM_HOME/daemon.lock holding exactly one
// listening Unix socket, named after its daemon. It lives in XPM_HOME (0700), so only its owner
// (and root) can take it or connect to it; the kernel stops the socket listening when the daemon
// dies, however it dies, so a dead holder is told from a live one by a refused connection.
//
// Taking it is one atomic step: the socket listens first in a private staging folder, then
// rename(staging, daemon.lock) — which succeeds only when daemon.lock is missing or empty. A
// socket nobody listens on any more is unlinked by its own unique name, never by the shared
// name, so two daemons clearing the same stale lock cannot remove each other's: whichever
// renames first wins, the other finds a live socket and leaves.
//
// A connection to the lock gets one JSON line, { pid, state: 'starting'|'running'|'closing' },
// and stays open until the daemon exits: the CLI uses it to find a daemon whose daemon.sock is
// gone (a 'running' daemon checks its socket and listens again before it answers) and to wait,
// without polling, for a daemon that is shutting down.

const LOCK_NAME = 'daemon.lock'
const STAGING_PREFIX = '.lock-'
const PROBE_TIMEOUT = 3000

// → { release, setDescribe(fn), path } when this process now holds the lock, or
// { held: holder } when another live daemon does (holder: see probeLock).
async function acquireLock (home, { attempts = 64 } = {}) {
  const fsp = fs.promises
  const lockDir = path.join(home, LOCK_NAME)
  const id = `${process.pid.toString(36)}-${crypto.randomBytes(4).toString('hex')}`
  const staging = path.join(home, STAGING_PREFIX + id)
  let describe = async () => ({ pid: process.pid, state: 'starting' })
  const open = new Set()
  const server = net.createServer((socket) => {
    open.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => open.delete(socket))
    socket.on('data', () => {}) // nothing is expected from a prober
    Promise.resolve()
      .then(() => describe())
      .then((info) => { if (!socket.destroyed) socket.write(JSON.stringify(info) + '\n') })
      .catch(() => socket.destroy())
  })
  server.on('error', () => {})

  await fsp.mkdir(staging, { mode: 0o700 })
  let won = false
  try {
    await listenPrivate(server, path.join(staging, id))
    for (let i = 0; i < attempts; i++) {
      try {
        await fsp.rename(staging, lockDir)
        won = true
        break
      } catch (err) {
        if (err.code === 'ENOTDIR') {
          await fsp.rm(lockDir, { force: true }) // a file, link or socket under the lock's name
          continue
        }
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
      }
      const holder = await liveHolder(lockDir, { removeStale: true })
      if (holder) return { held: holder }
    }
    if (!won) throw new Error(`could not take the lock ${lockDir} after ${attempts} attempts`)
  } finally {
    if (!won) {
      await new Promise((resolve) => server.close(resolve))
      await fsp.rm(staging, { recursive: true, force: true }).catch(() => {})
    }
  }
  server.unref()
  removeDeadStaging(home, staging).catch(() => {})
  return {
    path: path.join(lockDir, id),
    setDescribe (fn) { describe = fn },
    // Only for a daemon that is not going to exit (tests): a dying one leaves it to the kernel.
    release: async () => {
      for (const s of open) s.destroy()
      await fsp.unlink(path.join(lockDir, id)).catch(() => {})
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

// Waits (event-driven) until the daemon behind `holder` exits, then tries again; for a daemon
// under a service manager that must not give up while a CLI-started daemon still runs.
async function waitForLock (home, options) {
  for (;;) {
    const res = await acquireLock(home, options)
    if (!res.held) return res
    await res.held.gone
  }
}

// Binds a Unix socket readable and writable by the owner only (umask 0177 for the bind, which
// happens synchronously inside listen()).
function listenPrivate (server, file) {
  return new Promise((resolve, reject) => {
    const onError = (err) => reject(err)
    server.once('error', onError)
    const previous = process.umask(0o177)
    try {
      server.listen(file, () => {
        server.off('error', onError)
        resolve()
      })
    } finally {
      process.umask(previous)
    }
  })
}

// The daemon holding the lock, or null. removeStale: unlink sockets nobody listens on (daemons
// only; the CLI leaves that to them).
async function liveHolder (lockDir, { removeStale = false, timeout = PROBE_TIMEOUT } = {}) {
  let names
  try {
    names = await fs.promises.readdir(lockDir)
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes(err.code)) return null
    throw err
  }
  for (const name of names) {
    const file = path.join(lockDir, name)
    const holder = await connectHolder(file, timeout)
    if (holder) return holder
    if (removeStale) await fs.promises.unlink(file).catch(() => {})
  }
  return null
}

// A connection to one lock socket: null when nobody listens there (ECONNREFUSED, ENOENT),
// else { pid, state, gone, close } once its line arrived. Any other failure to connect (a full
// backlog, say) counts as a live holder that did not say who it is.
function connectHolder (file, timeout) {
  return new Promise((resolve) => {
    const socket = net.createConnection(file)
    let settled = false
    let buffer = ''
    const gone = new Promise((resolve) => socket.once('close', resolve))
    const holder = (info) => ({ pid: info.pid ?? null, state: info.state ?? 'unknown', gone, close: () => socket.destroy() })
    const done = (value) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(value)
    }
    const timer = setTimeout(() => done(holder({})), timeout)
    timer.unref()
    socket.on('error', (err) => {
      if (!settled && (err.code === 'ECONNREFUSED' || err.code === 'ENOENT')) done(null)
      else done(holder({}))
    })
    socket.on('data', (chunk) => {
      buffer += chunk
      const nl = buffer.indexOf('\n')
      if (nl < 0) return
      let info = {}
      try { info = JSON.parse(buffer.slice(0, nl)) } catch {}
      done(holder(info))
    })
    // connected, then closed without a word: the holder is exiting right now
    socket.on('close', () => done(holder({ state: 'closing' })))
  })
}

// The CLI's view: the daemon holding the lock of this XPM_HOME, or null when none does.
function probeLock (home, { timeout = PROBE_TIMEOUT } = {}) {
  return liveHolder(path.join(home, LOCK_NAME), { timeout })
}

// The pids named by the sockets in the lock (each is `<pid in base 36>-<random>`): the daemon
// behind a lock that answers nothing (stopped, or its loop blocked), for `xpm kill`. Only
// meaningful while probeLock finds a live holder.
async function lockPids (home) {
  const names = await fs.promises.readdir(path.join(home, LOCK_NAME)).catch(() => [])
  return names.map((n) => parseInt(n.split('-')[0], 36)).filter((pid) => Number.isSafeInteger(pid) && pid > 0)
}

// Staging folders left by a daemon killed while it was taking the lock. Ours is gone by now;
// one whose socket still listens belongs to a daemon about to find it lost.
async function removeDeadStaging (home, own) {
  const names = await fs.promises.readdir(home)
  for (const name of names) {
    const dir = path.join(home, name)
    if (!name.startsWith(STAGING_PREFIX) || dir === own) continue
    const inside = await fs.promises.readdir(dir).catch(() => [])
    const live = await Promise.all(inside.map((n) => connectHolder(path.join(dir, n), 1000)))
    live.forEach((h) => h?.close())
    if (inside.length && !live.some(Boolean)) await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => {})
  }
}

module.exports = { acquireLock, waitForLock, probeLock, lockPids, listenPrivate, LOCK_NAME }
