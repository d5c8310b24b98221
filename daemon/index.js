'use strict'

const fs = require('node:fs')
const { homePaths } = require('../lib/paths')
const { ensureSafeHome, ensurePrivateDir, writePrivateFileSync } = require('../lib/safe-fs')
const { acquireLock, waitForLock, listenPrivate } = require('../lib/daemon-lock')
const { createServer } = require('./server')
const { createMethods } = require('./methods')
const { Supervisor } = require('./supervisor')
const { createDaemonLogger } = require('./logger')
const { createLogSink } = require('./logs')
const { createMetrics } = require('./metrics')
const { createPolicies } = require('./policies')
const { createPersistence } = require('./persistence')
const { createHealth } = require('./health')
const { createProber } = require('./health/probes')
const { createJournal } = require('./journal')
const { createHooks } = require('./hooks')
const { DaemonPhase } = require('./phase')
const { version } = require('../package.json')

// The daemon: one per XPM_HOME, the cluster primary of every clustered app.
async function main (options = {}) {
  const paths = homePaths()
  // Refused (XPM_ERR_HOME_UNSAFE) when another user owns or can write it: see lib/safe-fs.js.
  ensureSafeHome(paths.home, { create: true, tighten: true })
  ensurePrivateDir(paths.logsDir)
  const journalDir = require('node:path').join(paths.home, 'journal')
  ensurePrivateDir(journalDir)

  // --foreground (systemd): wait for a daemon the CLI started to go away rather than exit in a loop
  const lock = options.waitForLock ? await waitForLock(paths.home) : await acquireLock(paths.home)
  if (lock.held) {
    lock.held.close()
    options.endpoint?.close()
    if (options.runtime) throw new Error(`another xpm daemon (pid ${lock.held.pid ?? '?'}) already runs for ${paths.home}; give this one its own XPM_HOME`)
    process.exitCode = 0 // another daemon owns this XPM_HOME; the CLI will talk to it
    return
  }

  // Workers get exactly the environment of their spec: cluster.fork() merges the primary's
  // process.env under it, so the daemon keeps its own copy and empties process.env.
  const daemonEnv = { ...process.env }
  for (const key of Object.keys(process.env)) delete process.env[key]
  process.env.XPM_HOME = paths.home

  const logger = options.logger || createDaemonLogger({ file: paths.daemonLog })
  const logSink = createLogSink({ logsDir: paths.logsDir, logger, ...options.logSink })
  const metrics = createMetrics({})
  const prober = createProber()
  const supervisor = new Supervisor({ logSink, metrics, logger, prober })
  const policies = createPolicies({ supervisor, metrics, logger, home: paths.home })
  // Probes of online processes, the restart journal (`xpm why`), on_event hooks: docs/health.md
  const health = createHealth({ supervisor, policies, prober, logger })
  const journal = createJournal({ supervisor, logSink, dir: journalDir, logger })
  const hooks = createHooks({ supervisor, logger })
  const phase = new DaemonPhase()
  const persistence = createPersistence({ paths, supervisor, logger, version, resurrect: options.resurrect, keepState: !options.runtime })
  await persistence.prepare()
  // /metrics, /livez, /readyz: off unless XPM_METRICS names an address (xpm-runtime opens its
  // own first, from --metrics-address, and hands it over: daemon/prometheus).
  const endpoint = options.endpoint !== undefined ? options.endpoint : await require('./prometheus').openFromEnv(daemonEnv.XPM_METRICS, logger)
  endpoint?.attach({ supervisor, metrics, version })

  let shuttingDown = false
  let socketWatcher = null
  const shutdown = async () => {
    if (shuttingDown) return
    shuttingDown = true
    phase.shutDown()
    supervisor.beginClose()
    logger.info({ event: 'shutdown' }, 'stopping every app')
    // The socket keeps answering until the process exits: a command sent now gets
    // XPM_ERR_SHUTTING_DOWN (or, for one already running, its own outcome) instead of a closed
    // connection, and the CLI waits for this process to exit before it starts a new daemon.
    policies.close()
    health.close()
    hooks.close()
    await persistence.beforeShutdown()
    await supervisor.close()
    await persistence.afterShutdown()
    await journal.idle() // the stops just recorded, with their last lines
    journal.close()
    metrics.stop()
    await logSink.close()
    socketWatcher?.close()
    endpoint?.close() // /readyz answered 503 while the apps drained
    server.close() // also removes daemon.sock
    await fs.promises.rm(paths.pidFile, { force: true })
    logger.info({ event: 'exit' }, 'daemon exiting')
    await logger.close?.()
    process.exit(options.exitCode?.() ?? 0)
  }

  const methods = createMethods({ supervisor, logSink, metrics, shutdown, version, persistence, journal, phase })
  const { server } = createServer({ methods, version, logger, hello: persistence.hello })
  let socketId = await listenOnSocket(server, paths.socket)

  // daemon.sock removed or replaced while the daemon runs (a cleanup script, `rm -rf` of the
  // wrong thing): listen on it again. Checked when XPM_HOME changes (inotify, no timer) and
  // whenever a CLI that could not connect asks the lock who holds this XPM_HOME.
  let ensuring = null
  const ensureSocket = () => {
    ensuring ??= (async () => {
      try {
        const st = await fs.promises.lstat(paths.socket).catch((err) => (err.code === 'ENOENT' ? null : Promise.reject(err)))
        if (shuttingDown || (st && st.dev === socketId.dev && st.ino === socketId.ino)) return
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
    if (!shuttingDown) await ensureSocket()
    return { pid: process.pid, state: shuttingDown ? 'closing' : 'running', phase: phase.name }
  })
  try {
    socketWatcher = fs.watch(paths.home, (event, name) => { if (name === 'daemon.sock') ensureSocket() })
    socketWatcher.on('error', (err) => logger.warn({ event: 'watch-error', err }, `watching ${paths.home} stopped: ${err.message}`))
    socketWatcher.unref()
  } catch (err) {
    logger.warn({ event: 'watch-error', err }, `cannot watch ${paths.home} (${err.code}); a removed daemon.sock comes back when a CLI asks the lock`)
  }

  writePrivateFileSync(paths.pidFile, String(process.pid))
  metrics.start()

  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)
  process.on('SIGHUP', () => {})
  process.on('SIGUSR2', () => { logSink.reopen() })
  process.on('uncaughtException', (err) => logger.error({ event: 'error', err }, 'uncaught exception'))
  process.on('unhandledRejection', (err) => logger.error({ event: 'error', err }, 'unhandled rejection'))
  logger.info({ event: 'start', pid: process.pid, version, home: paths.home, node: process.version }, 'daemon started')
  persistence.run({ recovered: () => phase.serve() }).catch((err) => logger.error({ event: 'error', err }, 'restoring the saved state failed'))
    .finally(() => phase.serve())
    .finally(() => { if (!options.runtime) endpoint?.markStarted() }) // the runtime says when its apps are started
  return { daemonEnv, supervisor, shutdown, endpoint }
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

// `node daemon/index.js [--foreground] [--resurrect]`; daemon/runtime calls main() in-process.
if (require.main === module) {
  main(require('./persistence/daemon-args').parseDaemonArgs(process.argv.slice(2))).catch((err) => {
    process.stderr.write(`xpm daemon failed to start: ${err.code?.startsWith?.('XPM_ERR_') ? `${err.message} [${err.code}]` : err.stack}\n`)
    process.exit(1)
  })
}

module.exports = { main }
