'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { runtimeExitCode, allEnded } = require('./exit-code')

const SETTLE_MS = 1000 // a restart passes through 'stopped': only a lasting end ends the runtime

// `xpm-runtime [start] <ecosystem|script> [start flags] [-- args]`: the daemon in this process,
// in the foreground, for containers; a drop-in for `pm2-runtime` (its flags: --raw, --json,
// --format, --delay, --no-auto-exit; PM2 Plus keys accepted with a notice). Apps' lines go to
// stdout/stderr prefixed `name[instance]| ` (--raw: bare, as pm2-runtime prints them) and to no
// file unless the app names one; the daemon's own events are JSON lines on stderr.
// SIGTERM/SIGINT stop every app gracefully; the exit status is the apps' (0 when they stopped
// as asked). The socket is still there, so `xpm list` and `xpm logs` work inside the container.
// initWarning: the runtime is PID 1 without an init (pid1.js); said once the log is up.
async function main (argv, { initWarning = null } = {}) {
  const program = buildProgram({ initWarning })
  // pm2-runtime takes `start <app>` as well as `<app>`
  if (argv[2] === 'start') argv = [...argv.slice(0, 2), ...argv.slice(3)]
  // PM2_RUNTIME_DEBUG (PM2's test switch): the apps go to a background daemon, as `xpm start`
  if (process.env.PM2_RUNTIME_DEBUG && argv.length > 2) return require('../../lib/cli/main').main([...argv.slice(0, 2), 'start', ...withoutRuntimeFlags(argv.slice(2))])
  try {
    await program.parseAsync(argv)
  } catch (err) {
    if (err.code?.startsWith('commander.')) {
      process.exitCode = err.exitCode === 0 ? 0 : 2
      return
    }
    const { printError } = require('../../lib/cli/run')
    printError(err)
    process.exitCode = require('../../lib/shared/errors').exitCodeFor(err)
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
  // pm2-runtime's own flags first: its --json and --format are about the apps' lines
  program
    .option('--raw', 'the apps\' lines as they are, without the `name[instance]| ` prefix')
    .option('--formatted', 'the apps\' lines prefixed with `name[instance]| ` (the default)')
    .option('--json', 'the apps\' lines as JSON objects {app, instance, id, pid, stream, time, message}')
    .option('--format', 'the apps\' lines as key=value: app=… id=… type=out message=…')
    .option('--delay <seconds>', 'wait this many seconds before starting the apps')
    .option('--no-auto-exit', 'keep running when every app has ended (default: exit with the apps\' status)')
  require('../../lib/cli/start-options').addStartOptions(program, { runtime: true })
  program.option('--metrics-address [address]', 'serve /metrics (Prometheus), /livez and /readyz on this address: a port, or host:port (default 127.0.0.1:9209; 0.0.0.0:9209 for a probe from outside the container). Also XPM_METRICS')
  return program.action((target, opts, command) => run(target, opts, command.args.slice(1), { initWarning }))
}

// The flags only the foreground runtime has (the apps' line style, --delay, --no-auto-exit).
function withoutRuntimeFlags (args) {
  const out = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return [...out, ...args.slice(i)]
    if (['--raw', '--formatted', '--format', '--json', '--no-auto-exit'].includes(args[i])) continue
    if (args[i] === '--delay') { i++; continue }
    if (args[i].startsWith('--delay=')) continue
    out.push(args[i])
  }
  return out
}

// How the apps' lines reach the console: PM2 runtime's --raw, --json, --format; xpm's prefix by default.
function lineStyle (opts) {
  if (opts.json) return 'json'
  if (opts.format) return 'format'
  if (opts.raw && !opts.formatted) return 'raw'
  return 'prefixed'
}

async function run (target, rawOpts, scriptArgs, { initWarning = null } = {}) {
  const { applyPm2Flags } = require('../../lib/cli/pm2-flags')
  const notice = (line) => process.stderr.write(`[xpm] notice: ${line}\n`)
  for (const line of require('../../lib/shared/config/pm2-env').pm2EnvNotices(process.env)) notice(line)
  const opts = applyPm2Flags(rawOpts, { notice })
  const style = lineStyle(opts)
  if (style === 'json' && opts.logType === undefined) opts.logType = 'json'
  const delay = opts.delay === undefined ? 0 : Number(opts.delay)
  if (!Number.isFinite(delay) || delay < 0 || delay > 86400) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --delay to be a number of seconds, got "${opts.delay}"`)
  const { resolveStart } = require('../../lib/shared/config')
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
    logSink: { toConsole: { stdout: process.stdout, stderr: process.stderr, style } },
    exitCode: () => (supervisor ? runtimeExitCode(supervisor.allInstances()) : 1)
  }).catch((err) => {
    endpoint?.close() // nothing else keeps this process alive: it exits with the error
    throw err
  })
  supervisor = daemon.supervisor
  if (opts.autoExit !== false) watchForEnd(supervisor, daemon.shutdown, logger)
  if (delay > 0) await require('node:timers/promises').setTimeout(delay * 1000)
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
