'use strict'

const { XpmError } = require('../../shared/errors')

// `xpm-runtime [start] <ecosystem|script> [start flags] [-- args]`: the daemon in this process,
// in the foreground, for containers; a drop-in for `pm2-runtime` (its flags: --raw, --json,
// --format, --delay, --no-auto-exit; PM2 Plus keys accepted with a notice). Apps' lines go to
// stdout/stderr prefixed `name[instance]| ` (--raw: bare, as pm2-runtime prints them) and to no
// file unless the app names one; the daemon's own events are JSON lines on stderr.
// SIGTERM/SIGINT stop every app gracefully; the exit status is the apps' (0 when they stopped
// as asked). The socket is still there, so `xpm list` and `xpm logs` work inside the container.
// This is its command line; the daemon's side (daemon/runtime/index.js) comes as runDaemon,
// handed over by bin/xpm-runtime (the CLI never loads daemon/ itself).
// initWarning: the runtime is PID 1 without an init (daemon/runtime/pid1.js); said once the log is up.
async function main (argv, { initWarning = null, runDaemon } = {}) {
  const program = buildProgram({ initWarning, runDaemon })
  // pm2-runtime takes `start <app>` as well as `<app>`
  if (argv[2] === 'start') argv = [...argv.slice(0, 2), ...argv.slice(3)]
  // PM2_RUNTIME_DEBUG (PM2's test switch): the apps go to a background daemon, as `xpm start`
  if (process.env.PM2_RUNTIME_DEBUG && argv.length > 2) return require('../main').main([...argv.slice(0, 2), 'start', ...withoutRuntimeFlags(argv.slice(2))])
  try {
    await program.parseAsync(argv)
  } catch (err) {
    if (err.code?.startsWith('commander.')) {
      process.exitCode = err.exitCode === 0 ? 0 : 2
      return
    }
    require('../io').createIo().printError(err)
    process.exitCode = require('../../shared/errors').exitCodeFor(err)
  }
}

function buildProgram ({ initWarning = null, runDaemon } = {}) {
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
    .option('--drain-delay <duration>', 'on SIGTERM or SIGINT, keep serving this long with /readyz failing before the apps drain: "5s", "500ms", or seconds (for clusters without a preStop hook; also XPM_DRAIN_DELAY; default 0)')
  require('../start-options').addStartOptions(program, { runtime: true })
  program.option('--metrics-address [address]', 'serve /metrics (Prometheus), /livez and /readyz on this address: a port, or host:port (default 127.0.0.1:9209; 0.0.0.0:9209 for a probe from outside the container). Also XPM_METRICS')
  return program.action((target, opts, command) => run(target, opts, command.args.slice(1), { initWarning, runDaemon }))
}

// The flags only the foreground runtime has (the apps' line style, --delay, --no-auto-exit).
function withoutRuntimeFlags (args) {
  const out = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return [...out, ...args.slice(i)]
    if (['--raw', '--formatted', '--format', '--json', '--no-auto-exit'].includes(args[i])) continue
    if (args[i] === '--delay' || args[i] === '--drain-delay') { i++; continue }
    if (args[i].startsWith('--delay=') || args[i].startsWith('--drain-delay=')) continue
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

async function run (target, rawOpts, scriptArgs, { initWarning = null, runDaemon }) {
  const { applyPm2Flags } = require('../pm2-flags')
  const notice = (line) => process.stderr.write(`[xpm] notice: ${line}\n`)
  for (const line of require('../../shared/config/pm2-env').pm2EnvNotices(process.env)) notice(line)
  const opts = applyPm2Flags(rawOpts, { notice })
  const style = lineStyle(opts)
  if (style === 'json' && opts.logType === undefined) opts.logType = 'json'
  const delay = opts.delay === undefined ? 0 : Number(opts.delay)
  if (!Number.isFinite(delay) || delay < 0 || delay > 86400) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected --delay to be a number of seconds, got "${opts.delay}"`)
  const drainDelay = opts.drainDelay === undefined ? undefined : drainDelayOf(opts.drainDelay)
  const { resolveStart } = require('../../shared/config')
  const resolved = await resolveStart({ target, flags: opts, scriptArgs, cwd: process.cwd(), env: process.env, only: opts.only, envName: opts.env })
  if (resolved.kind === 'name') {
    throw new XpmError('XPM_ERR_SCRIPT_NOT_FOUND', `xpm-runtime needs a script or an ecosystem file, got "${target}" (no such file)`)
  }
  for (const line of resolved.notices ?? []) process.stderr.write(`[xpm] notice: ${line}\n`) // PM2 keys xpm does not act on
  const { parseMetricsAddress } = require('../../shared/metrics-address')
  const metricsAddress = opts.metricsAddress !== undefined
    ? parseMetricsAddress(opts.metricsAddress, { from: '--metrics-address' })
    : parseMetricsAddress(process.env.XPM_METRICS, { from: 'XPM_METRICS' })
  await runDaemon({ specs: resolved.specs, style, metricsAddress, delaySeconds: delay, drainDelay, autoExit: opts.autoExit !== false, initWarning })
}

function drainDelayOf (value) {
  try {
    return require('../../shared/drain-delay').parseDrainDelay(value, '--drain-delay')
  } catch (err) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', err.message)
  }
}

module.exports = { main, buildProgram }
