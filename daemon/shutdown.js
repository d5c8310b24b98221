'use strict'

const fs = require('node:fs')

// The daemon's graceful exit (SIGTERM, SIGINT, `xpm kill`): once, in this order. The socket
// keeps answering until the process exits: a command sent now gets XPM_ERR_SHUTTING_DOWN (or,
// for one already running, its own outcome) instead of a closed connection, and the CLI waits
// for this process to exit before it starts a new daemon.
// parts: what daemon/index.js built; socket() and server() may still be null.
// signal: the signal that asked for it (SIGTERM, SIGINT), or none (`xpm kill`, the runtime's end).
// On a signal, drainDelay (ms; --drain-delay, XPM_DRAIN_DELAY) keeps the apps serving with
// /readyz failing before they drain: an orchestrator without a preStop hook removes the endpoint
// while SIGTERM is already under way, and requests keep arriving meanwhile.
// A second signal, or `xpm kill`, during the delay ends it: whoever asks again wants the stop now.
async function shutDown (state, parts, signal = null) {
  if (state.shuttingDown) return state.endDelay?.()
  state.shuttingDown = true
  const { phase, supervisor, logger, policies, health, hooks, persistence, journal, metrics, logSink, endpoint, paths, options, otel } = parts
  phase.shutDown()
  supervisor.beginClose()
  const drainDelay = typeof signal === 'string' ? options.drainDelay ?? 0 : 0
  if (drainDelay > 0) {
    logger.info({ event: 'drain-delay', signal, ms: drainDelay }, `${signal}: /readyz fails, the apps serve on for ${drainDelay} ms before they drain`)
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, drainDelay)
      state.endDelay = () => { clearTimeout(timer); resolve() }
    })
    state.endDelay = null
  }
  logger.info({ event: 'shutdown' }, 'stopping every app')
  policies.close()
  health.close()
  hooks.close()
  await persistence.beforeShutdown()
  await supervisor.close()
  await persistence.afterShutdown()
  await journal.idle() // the stops just recorded, with their last lines
  journal.close()
  metrics.stop()
  await otel?.close() // the last lines and figures, within a bounded time (daemon/otel-switch.js)
  await logSink.close()
  parts.socket()?.close()
  endpoint?.close() // /readyz answered 503 while the apps drained
  parts.server()?.close() // also removes daemon.sock
  await fs.promises.rm(paths.pidFile, { force: true })
  logger.info({ event: 'exit' }, 'daemon exiting')
  await logger.close?.()
  process.exit(options.exitCode?.() ?? 0)
}

module.exports = { shutDown }
