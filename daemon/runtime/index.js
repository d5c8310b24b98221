'use strict'

const { XpmError } = require('../../lib/errors')
const { runtimeExitCode, allEnded } = require('./exit-code')

const SETTLE_MS = 1000 // a restart passes through 'stopped': only a lasting end ends the runtime

// `xpm-runtime <ecosystem|script> [start flags] [-- args]`: the daemon in this process, in the
// foreground, for containers. Apps' lines go to stdout/stderr prefixed `name[instance]| ` and
// to no file unless the app names one; the daemon's own events are JSON lines on stderr.
// SIGTERM/SIGINT stop every app gracefully; the exit status is the apps' (0 when they stopped
// as asked). The socket is still there, so `xpm list` and `xpm logs` work inside the container.
// initWarning: the runtime is PID 1 without an init (pid1.js); said once the log is up.
async function main (argv, { initWarning = null } = {}) {
  const program = buildProgram({ initWarning })
  try {
    await program.parseAsync(argv)
  } catch (err) {
    if (err.code?.startsWith('commander.')) {
      process.exitCode = err.exitCode === 0 ? 0 : 2
      return
    }
    const { printError } = require('../../lib/cli/run')
    printError(err)
    process.exitCode = require('../../lib/errors').exitCodeFor(err)
  }
}

function buildProgram ({ initWarning = null } = {}) {
  const { Command } = require('commander')
  const program = new Command('xpm-runtime')
    .description('run apps in the foreground as a container\'s main process (PID 1)')
    .usage('<ecosystem|script> [options] [-- script args]')
    .argument('<target>', 'an ecosystem file or a script')
    .allowExcessArguments(true)
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'xpm-runtime: ')) })
  require('../../lib/cli/start-options').addStartOptions(program)
  program.option('--metrics-address [address]', 'serve /metrics (Prometheus), /livez and /readyz on this address: a port, or host:port (default 127.0.0.1:9209; 0.0.0.0:9209 for a probe from outside the container). Also XPM_METRICS')
  return program.action((target, opts, command) => run(target, opts, command.args.slice(1), { initWarning }))
}

async function run (target, opts, scriptArgs, { initWarning = null } = {}) {
  const { resolveStart } = require('../../lib/config')
  const resolved = await resolveStart({ target, flags: opts, scriptArgs, cwd: process.cwd(), env: process.env, only: opts.only, envName: opts.env })
  if (resolved.kind === 'name') {
    throw new XpmError('XPM_ERR_SCRIPT_NOT_FOUND', `xpm-runtime needs a script or an ecosystem file, got "${target}" (no such file)`)
  }
  for (const line of resolved.notices ?? []) process.stderr.write(`[xpm] notice: ${line}\n`) // PM2 keys xpm does not act on
  // The probes' and metrics' port first: one that is taken fails the container before any app
  // starts (the daemon's own XPM_METRICS endpoint only logs such a failure).
  const { parseMetricsAddress, openEndpoint } = require('../prometheus')
  const where = opts.metricsAddress !== undefined
    ? parseMetricsAddress(opts.metricsAddress, { from: '--metrics-address' })
    : parseMetricsAddress(process.env.XPM_METRICS, { from: 'XPM_METRICS' })
  const endpoint = where ? await openEndpoint(where) : null
  const pino = require('pino')
  const logger = require('../logger').createLogger({ destination: pino.destination({ fd: 2, sync: true }) })
  if (initWarning) logger.warn({ event: 'pid1-without-init' }, initWarning)
  if (endpoint) logger.info({ event: 'metrics-endpoint', url: endpoint.url }, `metrics and probes on ${endpoint.url}/metrics, /livez, /readyz`)
  let supervisor = null
  const daemon = await require('../index').main({
    runtime: true,
    endpoint,
    logger,
    logSink: { toConsole: { stdout: process.stdout, stderr: process.stderr } },
    exitCode: () => (supervisor ? runtimeExitCode(supervisor.allInstances()) : 1)
  }).catch((err) => {
    endpoint?.close() // nothing else keeps this process alive: it exits with the error
    throw err
  })
  supervisor = daemon.supervisor
  watchForEnd(supervisor, daemon.shutdown, logger)
  const results = await supervisor.start(resolved.specs)
  for (const r of results) {
    for (const f of r.failures || []) logger.error({ event: 'start-failed', app: r.name, instance: f.instance }, `${r.name}[${f.instance}] did not reach online: ${f.message}`)
  }
  endpoint?.markStarted() // /readyz from now on: every app that should be online is, and is ready
}

// When every app has ended on its own (no autorestart, `xpm stop all`, or errored), the
// container has nothing left to run: exit with the apps' status so the orchestrator decides.
function watchForEnd (supervisor, shutdown, logger) {
  let timer = null
  supervisor.on('change', () => {
    if (timer || !allEnded(supervisor.allInstances())) return
    timer = setTimeout(() => {
      timer = null
      if (!allEnded(supervisor.allInstances())) return
      logger.info({ event: 'runtime-end' }, 'every app has ended: exiting')
      shutdown()
    }, SETTLE_MS)
  })
}

module.exports = { main, buildProgram }
