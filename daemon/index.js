'use strict'

const fs = require('node:fs')
const net = require('node:net')
const crypto = require('node:crypto')
const { homePaths } = require('../lib/paths')
const { createServer } = require('./server')
const { createMethods } = require('./methods')
const { Supervisor } = require('./supervisor')
const { createDaemonLogger } = require('./logger')
const { createLogSink } = require('./logs')
const { createMetrics } = require('./metrics')
const { createPolicies } = require('./policies')
const { createPersistence } = require('./persistence')
const { version } = require('../package.json')

// The daemon: one per XPM_HOME, the cluster primary of every clustered app.
async function main (options = {}) {
  const paths = homePaths()
  fs.mkdirSync(paths.home, { recursive: true, mode: 0o700 })
  fs.chmodSync(paths.home, 0o700)
  fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 })

  let locked = await acquireLock(paths.home)
  // --foreground (systemd): wait for a daemon the CLI started to go away rather than exit in a loop
  while (!locked && options.waitForLock) locked = await new Promise((resolve) => setTimeout(resolve, 1000)).then(() => acquireLock(paths.home))
  if (!locked) {
    if (options.runtime) throw new Error(`another xpm daemon already runs for ${paths.home}; give this one its own XPM_HOME`)
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
  const supervisor = new Supervisor({ logSink, metrics, logger })
  const policies = createPolicies({ supervisor, metrics, logger, home: paths.home })
  const persistence = createPersistence({ paths, supervisor, logger, version, resurrect: options.resurrect, keepState: !options.runtime })
  await persistence.prepare()

  let shuttingDown = false
  const shutdown = async () => {
    if (shuttingDown) return
    shuttingDown = true
    supervisor.beginClose()
    logger.info({ event: 'shutdown' }, 'stopping every app')
    server.close()
    for (const conn of connections) conn.socket.end()
    policies.close()
    await persistence.beforeShutdown()
    await supervisor.close()
    await persistence.afterShutdown()
    metrics.stop()
    await logSink.close()
    await fs.promises.rm(paths.pidFile, { force: true })
    logger.info({ event: 'exit' }, 'daemon exiting')
    await logger.close?.()
    process.exit(options.exitCode?.() ?? 0)
  }

  const methods = createMethods({ supervisor, logSink, metrics, shutdown, version, persistence })
  const { server, connections } = createServer({ methods, version, logger, hello: persistence.hello })
  await listenOnSocket(server, paths.socket)
  fs.writeFileSync(paths.pidFile, String(process.pid), { mode: 0o600 })
  metrics.start()

  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)
  process.on('SIGHUP', () => {})
  process.on('SIGUSR2', () => { logSink.reopen() })
  process.on('uncaughtException', (err) => logger.error({ event: 'error', err }, 'uncaught exception'))
  process.on('unhandledRejection', (err) => logger.error({ event: 'error', err }, 'unhandled rejection'))
  logger.info({ event: 'start', pid: process.pid, version, home: paths.home, node: process.version }, 'daemon started')
  persistence.run().catch((err) => logger.error({ event: 'error', err }, 'restoring the saved state failed'))
  return { daemonEnv, supervisor, shutdown }
}

// An abstract Unix socket named after XPM_HOME is the lock: the kernel frees it when the
// holder dies, so two daemons started at the same moment cannot both win, and a crashed
// daemon never leaves a stale lock behind (Linux only; elsewhere the socket itself decides).
function acquireLock (home) {
  if (process.platform !== 'linux') return Promise.resolve(true)
  const name = '\0xpm-' + crypto.createHash('sha256').update(home).digest('hex').slice(0, 32)
  return new Promise((resolve, reject) => {
    const lock = net.createServer()
    lock.once('error', (err) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)))
    lock.listen(name, () => {
      lock.unref()
      resolve(true)
    })
  })
}

// A socket file left by a dead daemon is removed; we hold the lock, so nobody else listens.
async function listenOnSocket (server, socketPath) {
  await fs.promises.rm(socketPath, { force: true })
  const previous = process.umask(0o177)
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(socketPath, () => { server.off('error', reject); resolve() })
    })
  } finally {
    process.umask(previous)
  }
  await fs.promises.chmod(socketPath, 0o600)
}

// `node daemon/index.js [--foreground] [--resurrect]`; daemon/runtime calls main() in-process.
if (require.main === module) {
  main(require('./persistence/daemon-args').parseDaemonArgs(process.argv.slice(2))).catch((err) => {
    process.stderr.write(`xpm daemon failed to start: ${err.stack}\n`)
    process.exit(1)
  })
}

module.exports = { main }
