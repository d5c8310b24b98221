'use strict'

const fs = require('node:fs')
const { listenPrivate } = require('../lib/shared/daemon-lock')

// Listens on daemon.sock, and on it again when it is removed or replaced while the daemon runs
// (a cleanup script, `rm -rf` of the wrong thing). Checked when XPM_HOME changes (inotify, no
// timer) and whenever a CLI that could not connect asks the lock who holds this XPM_HOME.
// → { close() }: stops watching (the server itself is closed by the shutdown).
async function keepSocket ({ server, paths, logger, lock, phase, isShuttingDown }) {
  let socketId = await listenOnSocket(server, paths.socket)
  let ensuring = null
  const ensureSocket = () => {
    ensuring ??= (async () => {
      try {
        const st = await fs.promises.lstat(paths.socket).catch((err) => (err.code === 'ENOENT' ? null : Promise.reject(err)))
        if (isShuttingDown() || (st && st.dev === socketId.dev && st.ino === socketId.ino)) return
        logger.warn({ event: 'socket-recreated', socket: paths.socket }, `${paths.socket} was ${st ? 'replaced' : 'removed'}; listening on it again`)
        server.close() // the old socket is unreachable; connections already open carry on
        socketId = await listenOnSocket(server, paths.socket)
      } catch (err) {
        logger.error({ event: 'error', err }, `could not listen on ${paths.socket} again: ${err.message}`)
      } finally {
        ensuring = null
      }
    })()
    return ensuring
  }
  lock.setDescribe(async () => {
    if (!isShuttingDown()) await ensureSocket()
    return { pid: process.pid, state: isShuttingDown() ? 'closing' : 'running', phase: phase.name }
  })
  let socketWatcher = null
  try {
    socketWatcher = fs.watch(paths.home, (event, name) => { if (name === 'daemon.sock') ensureSocket() })
    socketWatcher.on('error', (err) => logger.warn({ event: 'watch-error', err }, `watching ${paths.home} stopped: ${err.message}`))
    socketWatcher.unref()
  } catch (err) {
    logger.warn({ event: 'watch-error', err }, `cannot watch ${paths.home} (${err.code}); a removed daemon.sock comes back when a CLI asks the lock`)
  }
  return { close: () => socketWatcher?.close() }
}

// A socket file left by a dead daemon is removed; we hold the lock, so nobody else listens.
// Returns the new socket's { dev, ino }, so a later replacement of the file is noticed.
async function listenOnSocket (server, socketPath) {
  await fs.promises.rm(socketPath, { force: true })
  await listenPrivate(server, socketPath)
  await fs.promises.chmod(socketPath, 0o600)
  const st = await fs.promises.lstat(socketPath)
  return { dev: st.dev, ino: st.ino }
}

module.exports = { keepSocket }
