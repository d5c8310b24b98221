'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../../shared/errors')

// `xpm start <targets...> [options] [-- args]`: scripts, ecosystem files, `-` (apps as JSON on
// standard input), and apps the daemon knows (name, id, namespace, regex), several at once: each
// script is an app of its own, as in PM2. Without a target: ecosystem.config.js of this folder.
async function start (ctx, { targets: given = [], options: rawOpts, scriptArgs = [] }) {
  const { io } = ctx
  const opts = pm2Flags(rawOpts, io)
  const targets = given.length ? given : [defaultEcosystem(io.cwd())]
  if (opts.daemon === false && await foreground(targets, opts, scriptArgs, io)) return
  const { specs, names, fromScript, scripts, missing } = await gather(targets, opts, scriptArgs, io)
  // PM2: `start ls` runs the program on PATH when no app has that name
  if (names.length) await programsOnPath(ctx, names, specs, fromScript, opts, scriptArgs)
  // PM2: `start <name|id> --name new` or with other options (--node-args, --watch…) restarts the
  // app with them, as `xpm restart` does
  if (names.length && !specs.length && require('../spec-changes').changesOf(opts)) {
    return require('./lifecycle').restart(ctx, { targets: names, options: opts, scriptArgs })
  }
  if (opts.name !== undefined && scripts > 1) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--name names one app; ${scripts} scripts were given (start them one by one to name each)`)
  }
  const { checkDuplicates } = require('../../shared/config/validate')
  checkDuplicates(specs, 'this command')
  await withAppSettings(specs, io.paths().home)

  const client = await ctx.connect()
  const outcome = await send(client, { names, specs, fromScript, opts, io })
  if (!outcome) return
  const { failures, finished, warnings } = outcome
  // processes taken as online at listen_timeout (wait_ready without 'ready', or still booting;
  // daemon/model/wait-ready.js): the journal has them too (`xpm why`)
  printWarnings(warnings, io.stderr)
  if (opts.json) io.printJson(await client.request('list'))
  else {
    if (finished.length) io.say(`[xpm] finished with exit code 0 before it was ready (autorestart off): id ${finished.join(', ')}\n`)
    await io.showList(client)
  }
  if (opts.attach && !failures.length && !missing.length) {
    // PM2's --attach: follow what was just started, until Ctrl-C
    return require('./logs').logs(ctx, { targets: [...names, ...specs.map((s) => s.name)], options: { lines: 0 }, scriptArgs: [] })
  }
  if (failures.length) throw await startFailed(client, failures, io)
  if (missing.length) throw notStarted(missing, io)
}

// PM2: the apps of a file whose script is missing are reported once the others started.
function notStarted (missing, io) {
  for (const err of missing.slice(1)) io.stderr.write(`xpm: ${err.message} [${err.code}]\n`)
  return missing[0]
}

// The targets as the config model reads them: specs (scripts, files, stdin) and names of apps
// the daemon knows (names, ids, namespaces, regexes); fromScript: the apps from a script.
async function gather (targets, opts, scriptArgs, io) {
  const { resolveStart } = require('../../shared/config')
  const { regexOf } = require('../targets')
  const specs = []
  const names = []
  const fromScript = []
  const missing = []
  let scripts = 0
  for (const target of targets) {
    if (target === '-') {
      specs.push(...await fromStdin(opts, scriptArgs, io))
      continue
    }
    if (regexOf(target)) {
      names.push(target)
      continue
    }
    const resolved = await resolveStart({ target, flags: opts, scriptArgs, cwd: io.cwd(), env: io.env, only: opts.only, envName: opts.env, partial: true })
    missing.push(...resolved.missing ?? [])
    // PM2 keys xpm accepts without acting on them, once each (stderr: --json output stays JSON)
    for (const line of resolved.notices ?? []) io.notice(line)
    if (resolved.kind === 'name') names.push(target)
    else specs.push(...resolved.specs)
    if (resolved.kind === 'script') {
      scripts++
      fromScript.push(...resolved.specs.map((s) => s.name))
    }
  }
  otelNotice(specs, io)
  return { specs, names, fromScript, scripts, missing }
}

// `otel` with the OpenTelemetry packages left out of the install: the apps start all the same,
// without telemetry (docs/otel.md); said here once, before anything starts.
function otelNotice (specs, io) {
  const names = specs.filter((s) => s.otel).map((s) => s.name)
  if (!names.length) return
  try {
    require.resolve('@opentelemetry/sdk-node')
  } catch {
    io.notice(`otel is on for ${names.join(', ')} but the OpenTelemetry packages are not installed next to xpm [XPM_ERR_OTEL_MISSING]: the apps run without telemetry; install xpm with its optional dependencies (npm install -g xpm --include=optional)`)
  }
}

// startTarget for the names, start for the specs, side by side: { failures, finished, warnings }, or null
// when the CLI stopped waiting (the daemon keeps working).
async function send (client, { names, specs, fromScript, opts, io }) {
  const { longRequest, progressPrinter, printStillWorking, StillWorking } = require('../long-request')
  const { expandTargets, wire } = require('../targets')
  const printProgress = progressPrinter({ json: opts.json || io.output.silent, stream: io.stdout })
  const failures = []
  const finished = []
  const warnings = []
  const onProgress = (p) => {
    if (p.type === 'online' && typeof p.warning === 'string') warnings.push(p.warning)
    printProgress(p)
  }
  try {
    const jobs = []
    if (names.length) {
      const target = wire(await expandTargets(client, names))
      jobs.push(longRequest(client, 'startTarget', { target }, { onProgress }).then((r) => {
        failures.push(...r.failures.map((f) => ({ ...f, name: f.name ?? names.join(', ') })))
        finished.push(...(r.finished || []))
      }))
    }
    if (specs.length) {
      jobs.push(longRequest(client, 'start', { specs, force: opts.force === true, fromScript }, { onProgress }).then((results) => {
        for (const r of results) {
          if (!opts.json && r.action !== 'started' && r.action !== 'already running') io.say(`[xpm] ${r.name}: ${r.action}\n`)
          failures.push(...(r.failures || []).map((f) => ({ ...f, name: r.name })))
          finished.push(...(r.finished || []))
        }
      }))
    }
    await Promise.all(jobs)
  } catch (err) {
    if (!(err instanceof StillWorking)) throw err
    printStillWorking([...names, ...specs.map((s) => s.name)], err, io.stderr)
    return null
  }
  return { failures, finished, warnings }
}

// The error a start with failures ends with, after the first one's last stderr lines, a line for
// each other one, and which are being retried.
async function startFailed (client, failures, io) {
  const first = failures[0]
  if (first.stderr?.length) io.stderr.write(`[xpm] last lines of ${first.name}[${first.instance}] on stderr:\n${first.stderr.map((l) => '  ' + l).join('\n')}\n`)
  if (first.code === 'XPM_ERR_APP_EXISTS') return new XpmError(first.code, first.message, { details: failures })
  // every failure past the first in a line of its own (a dependent not started says why)
  for (const f of failures.slice(1)) io.stderr.write(`[xpm] ${f.message}\n`)
  await require('../retrying').sayRetrying(client, failures, io.stderr)
  return new XpmError(first.code === 'XPM_ERR_CANCELLED' || first.code === 'XPM_ERR_PORT_TAKEN' ? first.code : 'XPM_ERR_START_FAILED',
    `${failures.length} process(es) did not reach online: ${first.message}${first.code === 'XPM_ERR_CANCELLED' ? '' : `; see \`xpm logs ${first.name}\``}`,
    { details: failures })
}

// Bare words that name no app the daemon knows but a program on PATH (`xpm start ls`) become
// apps running that program, as in PM2; the others stay names (an unknown one fails as before).
async function programsOnPath (ctx, names, specs, fromScript, opts, scriptArgs) {
  const { io } = ctx
  const { whichSync } = require('../../shared/config/script')
  const candidates = names.filter((n) => !/^\d+$/.test(n) && !/[/\\\s]/.test(n) && whichSync(n, io.env.PATH) !== null)
  if (!candidates.length) return
  const client = await ctx.connect()
  const known = new Set((await client.request('list', { fields: ['name', 'namespace'] })).flatMap((p) => [p.name, p.namespace ?? 'default']))
  const { resolveStart } = require('../../shared/config')
  for (const name of candidates.filter((n) => !known.has(n))) {
    const resolved = await resolveStart({ target: name, flags: opts, scriptArgs, cwd: io.cwd(), env: io.env, program: true })
    names.splice(names.indexOf(name), 1)
    specs.push(...resolved.specs)
    fromScript.push(...resolved.specs.map((s) => s.name))
  }
}

// `xpm set <app>:<key> <value>` values (app-conf.js): in the app's environment, as PM2 gives them.
async function withAppSettings (specs, home) {
  if (!specs.length) return
  const store = require('../../shared/state/app-conf')
  const conf = await store.readAppConf(home).catch(() => ({}))
  for (const spec of specs) Object.assign(spec.env, store.appEnv(conf, spec.name))
}

// A few in full, then how many more: a start of 1,000 processes on a saturated machine may
// take them all as online at listen_timeout.
const WARNINGS_SHOWN = 5
function printWarnings (warnings, stderr) {
  for (const warning of warnings.slice(0, WARNINGS_SHOWN)) stderr.write(`[xpm] warning: ${warning}\n`)
  const more = warnings.length - WARNINGS_SHOWN
  if (more > 0) stderr.write(`[xpm] warning: ${more} more process(es) taken as online at listen_timeout the same way (\`xpm why <app>\`)\n`)
}

// PM2's flags as xpm reads them (lib/cli/pm2-flags.js), with their notices on stderr.
// The same for PM2's environment variables xpm does not act on (PM2_DEEP_MONITORING…).
function pm2Flags (opts, io) {
  const { applyPm2Flags } = require('../pm2-flags')
  for (const line of require('../../shared/config/pm2-env').pm2EnvNotices(io.env)) io.notice(line)
  return applyPm2Flags(opts, { notice: io.notice })
}

// PM2's `start --no-daemon`: with no daemon running, the apps run in the foreground under
// `xpm-runtime` (the same flags), which this command waits for, passing on SIGINT and SIGTERM
// and exiting with its status: the container's main process stays this one. With a daemon
// running, the apps go to it, as PM2 does. Returns whether the runtime ran.
async function foreground (targets, opts, scriptArgs, io) {
  const client = await io.connect({ autoStart: false }).catch(() => null)
  if (client) {
    client.close()
    io.stderr.write('[xpm] notice: --no-daemon: a daemon already runs; the apps are started in it\n')
    return false
  }
  if (targets.length !== 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--no-daemon runs one script or ecosystem file in the foreground; ${targets.length} were given`)
  const word = io.argv.indexOf('start')
  const rest = io.argv.slice(word + 1)
  const flags = rest.slice(0, rest.includes('--') ? rest.indexOf('--') : undefined).filter((a) => a !== '--no-daemon')
  flags.splice(flags.indexOf(targets[0]), flags.includes(targets[0]) ? 1 : 0)
  const runtime = path.join(__dirname, '..', '..', '..', 'bin', 'xpm-runtime')
  const { spawn } = require('node:child_process')
  const child = spawn(process.execPath, [runtime, targets[0], ...flags, ...(scriptArgs.length ? ['--', ...scriptArgs] : [])], { stdio: 'inherit' })
  const stopPassing = io.onSignals(['SIGINT', 'SIGTERM'], (signal) => child.kill(signal))
  const [code, signal] = await require('node:events').once(child, 'exit')
  stopPassing()
  io.exitCode = code ?? (signal ? 128 + require('node:os').constants.signals[signal] : 1)
  return true
}

// PM2's `pm2 start` without a target: the ecosystem file of the current folder.
function defaultEcosystem (cwd) {
  for (const name of ['ecosystem.config.js', 'ecosystem.config.cjs', 'ecosystem.config.mjs', 'ecosystem.json']) {
    if (fs.existsSync(path.join(cwd, name))) return name
  }
  throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Nothing to start: give a script, an ecosystem file or an app, or run it in a folder with an ecosystem.config.js (`xpm init` writes one)')
}

// `xpm start -`: { apps: [...] }, an array of apps or one app, as JSON on standard input
// (`cat apps.json | xpm start -`). Paths are relative to the current folder.
async function fromStdin (opts, scriptArgs, io) {
  const apps = await require('../stdin-apps').readStdinApps({ stdin: io.stdin })
  const { normalizeApp } = require('../../shared/config')
  const { parseFlags } = require('../../shared/config/validate')
  const overrides = parseFlags(opts, { cwd: io.cwd() })
  return apps.map((raw, i) => normalizeApp(raw, { baseDir: io.cwd(), env: io.env, envName: opts.env, overrides, scriptArgs, label: typeof raw?.name === 'string' ? raw.name : `#${i + 1} on standard input` }))
}

module.exports = { start }
