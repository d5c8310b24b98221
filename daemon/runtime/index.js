'use strict'

const { runtimeExitCode, allEnded } = require('./exit-code')

const SETTLE_MS = 1000 // a restart passes through 'stopped': only a lasting end ends the runtime

// xpm-runtime's daemon side: the daemon in this process, in the foreground, running `specs`
// (resolved by its command line, lib/cli/runtime). Apps' lines go to stdout/stderr in `style`
// (prefixed, raw, json, format); the daemon's own events are JSON lines on stderr.
// metricsAddress: { host, port } of /metrics, /livez, /readyz, or null. autoExit: exit with the
// apps' status once every app has ended. initWarning: PID 1 without an init (pid1.js).
async function runForeground ({ specs, style, metricsAddress = null, delaySeconds = 0, drainDelay, autoExit = true, initWarning = null }) {
  // The probes' and metrics' port first: one that is taken fails the container before any app
  // starts (the daemon's own XPM_METRICS endpoint only logs such a failure).
  const { openEndpoint } = require('../prometheus')
  const endpoint = metricsAddress ? await openEndpoint(metricsAddress) : null
  const pino = require('pino')
  const logger = require('../logger').createLogger({ destination: pino.destination({ fd: 2, sync: true }) })
  if (initWarning) logger.warn({ event: 'pid1-without-init' }, initWarning)
  if (endpoint) logger.info({ event: 'metrics-endpoint', url: endpoint.url }, `metrics and probes on ${endpoint.url}/metrics, /livez, /readyz`)
  let supervisor = null
  const daemon = await require('../index').main({
    runtime: true,
    endpoint,
    drainDelay, // --drain-delay; undefined: XPM_DRAIN_DELAY (daemon/shutdown.js)
    logger,
    logSink: { toConsole: { stdout: process.stdout, stderr: process.stderr, style } },
    exitCode: () => (supervisor ? runtimeExitCode(supervisor.allInstances()) : 1)
  }).catch((err) => {
    endpoint?.close() // nothing else keeps this process alive: it exits with the error
    throw err
  })
  supervisor = daemon.supervisor
  if (autoExit) watchForEnd(supervisor, daemon.shutdown, logger)
  if (delaySeconds > 0) await require('node:timers/promises').setTimeout(delaySeconds * 1000)
  const results = await supervisor.start(specs)
  for (const r of results) {
    for (const f of r.failures || []) logger.error({ event: 'start-failed', app: r.name, instance: f.instance }, `${r.name}[${f.instance}] did not reach online: ${f.message}`)
  }
  endpoint?.markStarted() // /readyz from now on: every app that should be online is, and is ready
}

// When every app has ended on its own (no autorestart, `xpm stop all`, or errored), the
// container has nothing left to run: exit with the apps' status so the orchestrator decides.
function watchForEnd (supervisor, shutdown, logger) {
  let timer = null
  const onChange = () => {
    if (timer || !allEnded(supervisor.allInstances())) return
    timer = setTimeout(() => {
      timer = null
      if (!allEnded(supervisor.allInstances())) return
      logger.info({ event: 'runtime-end' }, 'every app has ended: exiting')
      shutdown()
    }, SETTLE_MS)
  }
  return supervisor.subscribe({ change: onChange })
}

module.exports = { runForeground }
