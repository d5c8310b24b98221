'use strict'

const { homePaths } = require('../lib/shared/paths')
const { ensureSafeHome, ensurePrivateDir, writePrivateFileSync } = require('../lib/shared/safe-fs')
const { acquireLock, waitForLock } = require('../lib/shared/daemon-lock')
const { keepSocket } = require('./socket-keeper')
const { shutDown } = require('./shutdown')
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
  // Refused (XPM_ERR_HOME_UNSAFE) when another user owns or can write it: see lib/shared/safe-fs.js.
  ensureSafeHome(paths.home, { create: true, tighten: true })
  ensurePrivateDir(paths.logsDir)
  // as PM2: each process's pid in XPM_HOME/pids/<name>-<instance>.pid unless the app names a pid_file
  ensurePrivateDir(paths.pidsDir)
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
  const otelEnv = require('../lib/shared/otel/settings').otelVariables(daemonEnv)
  const supervisor = new Supervisor({ pidsDir: paths.pidsDir, logSink, metrics, logger, prober, otelEnv })
  // OpenTelemetry export of the apps' figures and lines: loaded only once an app has `otel` on
  const otel = require('./otel-switch').createOtelSwitch({ supervisor, metrics, logSink, logger, otelEnv })
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
  endpoint?.attach({ supervisor, metrics, version, otel })

  let server = null
  let socket = null
  const state = { shuttingDown: false }
  const drainDelay = options.drainDelay ?? drainDelayFromEnv(daemonEnv.XPM_DRAIN_DELAY, logger)
  const shutdown = (signal) => shutDown(state, { phase, supervisor, logger, policies, health, hooks, persistence, journal, metrics, logSink, otel, endpoint, paths, options: { ...options, drainDelay }, socket: () => socket, server: () => server }, signal)

  const methods = createMethods({ supervisor, logSink, metrics, shutdown, version, persistence, journal, phase, otel })
  server = createServer({ methods, version, logger, hello: persistence.hello }).server
  socket = await keepSocket({ server, paths, logger, lock, phase, isShuttingDown: () => state.shuttingDown })

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

// XPM_DRAIN_DELAY of the daemon's environment (a duration, see daemon/shutdown.js); a bad value
// is logged and ignored: the daemon starts all the same.
function drainDelayFromEnv (value, logger) {
  if (value === undefined || value === '') return 0
  try {
    return require('../lib/shared/drain-delay').parseDrainDelay(value, 'XPM_DRAIN_DELAY')
  } catch (err) {
    logger.warn({ event: 'bad-drain-delay', value }, `${err.message}: no drain delay`)
    return 0
  }
}

// `node daemon/index.js [--foreground] [--resurrect]`; daemon/runtime calls main() in-process.
if (require.main === module) {
  main(require('./persistence/daemon-args').parseDaemonArgs(process.argv.slice(2))).catch((err) => {
    process.stderr.write(`xpm daemon failed to start: ${err.code?.startsWith?.('XPM_ERR_') ? `${err.message} [${err.code}]` : err.stack}\n`)
    process.exit(1)
  })
}

module.exports = { main }
