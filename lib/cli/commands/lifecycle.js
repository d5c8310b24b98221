'use strict'

const { XpmError } = require('../../shared/errors')
const { withoutInternals } = require('../../shared/internal-env')

// stop | restart | reload | delete | startOrRestart | startOrReload | startOrGracefulReload.
// Targets: app names, process ids, namespaces, scripts, `all`, regular expressions (/^api-/) and
// ecosystem files, several at once. The daemon resolves them together: every app they name
// runs its part at the same time, and a target that names nothing fails the command (exit 1)
// before anything is done.

// Ecosystem files among the targets give their apps (and specs); the others go to the daemon
// as typed (regexes expanded, paths made absolute: lib/cli/targets.js).
async function split (targets, opts, { withSpecs, io }) {
  const { resolveTargets, isEcosystemFile } = require('../../shared/config')
  const files = []
  const others = []
  for (const t of targets) {
    // `-`: apps as JSON on standard input, as PM2 (`cat apps.json | xpm delete -`)
    if (t === '-') files.push(await require('../stdin-apps').stdinTarget({ envName: opts.env, withSpecs, cwd: io.cwd(), env: io.env, stdin: io.stdin }))
    else if (isEcosystemFile(t)) files.push(await resolveTargets({ target: t, cwd: io.cwd(), only: opts.only, envName: opts.env, env: io.env, withSpecs }))
    else others.push(t)
  }
  // --only and --env need a file: refused before anything is done
  if (!files.length) await resolveTargets({ target: others[0], only: opts.only, envName: opts.env, withSpecs: false })
  return { files, others }
}

const unique = (list) => [...new Set(list)]

// name → whether some instance is wanted up (the app model's `running`).
async function appStatus (client) {
  const status = new Map()
  for (const p of await client.request('list', { fields: ['name', 'status'] })) {
    status.set(p.name, status.get(p.name) || !['stopped', 'errored'].includes(p.status))
  }
  return status
}

function progress (opts, io) {
  const { progressPrinter } = require('../long-request')
  return progressPrinter({ json: opts.json || io.output.silent, stream: io.stdout })
}

// Runs the long requests; false when the CLI stopped waiting (the daemon keeps working).
async function waitFor (jobs, names, io) {
  const { printStillWorking, StillWorking } = require('../long-request')
  try {
    return await Promise.all(jobs)
  } catch (err) {
    if (!(err instanceof StillWorking)) throw err
    printStillWorking(names, err, io.stderr)
    return false
  }
}

async function stopOrDelete (method, ctx, { targets, options: opts }) {
  const { say, printJson, showList } = ctx.io
  const { files, others } = await split(targets, opts, { withSpecs: false, io: ctx.io })
  const client = await ctx.connect()
  const { expandTargets, wire } = require('../targets')
  const { longRequest } = require('../long-request')
  const names = []
  if (files.length) {
    // the apps of a file that the daemon does not manage are skipped, and said so
    const status = await appStatus(client)
    const listed = unique(files.flatMap((f) => f.names))
    const missing = listed.filter((n) => !status.has(n))
    if (missing.length) say(`[xpm] not managed, nothing to ${method}: ${missing.join(', ')}\n`)
    names.push(...listed.filter((n) => status.has(n)))
    if (!names.length && !others.length) {
      throw new XpmError('XPM_ERR_APP_NOT_FOUND', `None of the apps of ${files.map((f) => f.file).join(', ')} is managed (${listed.join(', ')})`, { details: { target: listed } })
    }
  }
  names.push(...await expandTargets(client, others))
  const target = unique(names)
  const done = await waitFor([longRequest(client, method, { target: wire(target) }, { onProgress: progress(opts, ctx.io) })], target, ctx.io)
  if (!done) return
  const [result] = done
  if (opts.json) return printJson(result)
  say(`[xpm] ${method === 'stop' ? 'stopped' : 'deleted'} ${targets.join(', ')} (${result.ids.length} process${result.ids.length === 1 ? '' : 'es'})\n`)
  await showList(client)
}

// restart and reload; from an ecosystem file they also start the apps of the file the daemon
// does not run (PM2's startOrRestart / startOrReload, the usual deploy command). The daemon
// decides which, from its own registry, in one request (daemon/commands/start-or-restart.js).
async function restartOrReload (method, ctx, { targets, options: opts }, { filesOnly = null } = {}) {
  const { io } = ctx
  if (filesOnly) refuseNonFiles(targets, method, filesOnly)
  const { changesOf, applyChanges } = require('../spec-changes')
  const changes = changesOf(opts)
  const rename = changes?.name
  if (changes) delete changes.name
  const { files, others } = await split(targets, opts, { withSpecs: true, io })
  if (rename !== undefined && (files.length || others.length !== 1)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', '--name renames one app: give its name or id alone (the name of an app in an ecosystem file is its `name`)')
  }
  const client = await ctx.connect()
  const { expandTargets } = require('../targets')
  const onProgress = progress(opts, io)
  const expanded = await expandTargets(client, others)
  if (rename !== undefined) return renameApp(client, method, expanded, rename, changes, opts, onProgress, io)

  const fileSpecs = files.flatMap((f) => f.specs).map((s) => (changes ? applyChanges(s, changes) : s))
  const targetSpecs = await specsOfTargets(client, expanded, { changes, opts, io, skip: new Set(fileSpecs.map((s) => s.name)) })
  if (method === 'reload') printReloadSteps(client, opts, io)
  const reply = await send(client, method, { fileSpecs, expanded, targetSpecs, onProgress, io })
  if (reply) await report(client, method, reply, { files, targets, opts, io })
}

function refuseNonFiles (targets, method, filesOnly) {
  const { isEcosystemFile } = require('../../shared/config')
  const bad = targets.find((t) => !isEcosystemFile(t))
  if (bad !== undefined) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `${filesOnly} takes ecosystem files (ecosystem.config.js, *.config.js, *.json), got "${bad}"; use \`xpm ${method} ${bad}\` for an app`)
}

// Restart's options and --update-env on apps named on the command line: their current specs,
// changed (an app of a file in the same command takes the file's spec instead).
async function specsOfTargets (client, expanded, { changes, opts, io, skip }) {
  if (!expanded.length || !(changes || opts.updateEnv)) return []
  const { wire } = require('../targets')
  const { applyChanges } = require('../spec-changes')
  const specs = []
  const seen = new Set(skip)
  for (const { spec } of await client.request('show', { target: wire(expanded), fields: ['name', 'spec'] })) {
    if (seen.has(spec.name)) continue
    seen.add(spec.name)
    const s = changes ? applyChanges(spec, changes) : spec
    specs.push(opts.updateEnv ? { ...s, env: withoutInternals(io.env) } : s)
  }
  return specs
}

function printReloadSteps (client, opts, io) {
  client.on('event', ({ event, data }) => {
    if (event !== 'reload.step') return
    if (opts.json) io.stdout.write(JSON.stringify(data) + '\n')
    else {
      const line = describeStep(data)
      if (line) io.say(line + '\n')
    }
  })
}

// One request: startOrRestart with files, restart or reload of the named apps without.
// null when the CLI stopped waiting (the daemon keeps working).
async function send (client, method, { fileSpecs, expanded, targetSpecs, onProgress, io }) {
  const { longRequest, StillWorking } = require('../long-request')
  const { wire } = require('../targets')
  const none = { started: [], startedNames: [], target: expanded, restarted: null, reloadError: null }
  try {
    if (fileSpecs.length) {
      const params = { mode: method, specs: fileSpecs, ...(expanded.length ? { target: wire(expanded) } : {}), ...(targetSpecs.length ? { targetSpecs } : {}) }
      return await longRequest(client, 'startOrRestart', params, { onProgress })
    }
    if (!expanded.length) return none
    if (method === 'restart') {
      return { ...none, restarted: await longRequest(client, 'restart', { target: wire(expanded), ...(targetSpecs.length ? { specs: targetSpecs } : {}) }, { onProgress }) }
    }
    const reloadError = await client.request('reload', { target: wire(expanded), specs: targetSpecs.length ? targetSpecs : null }, { timeout: 10 * 60 * 1000 })
      .then(() => null, (err) => err)
    return { ...none, reloadError }
  } catch (err) {
    if (!(err instanceof StillWorking)) throw err
    const { printStillWorking } = require('../long-request')
    printStillWorking([...fileSpecs.map((s) => s.name), ...expanded], err, io.stderr)
    return null
  }
}

async function report (client, method, reply, { files, targets, opts, io }) {
  const { say, printJson, showList } = io
  const failures = []
  const finished = []
  for (const r of reply.started) {
    if (r.action !== 'started') say(`[xpm] ${r.name}: ${r.action}\n`)
    failures.push(...(r.failures || []).map((f) => ({ ...f, name: r.name })))
    finished.push(...(r.finished || []))
  }
  if (method === 'restart' && reply.restarted) {
    failures.push(...reply.restarted.failures)
    finished.push(...(reply.restarted.finished || []))
  }
  if (opts.json && method === 'restart') printJson({ started: reply.started, restarted: reply.restarted ?? undefined })
  if (!opts.json) {
    if (reply.startedNames.length) say(`[xpm] started ${reply.startedNames.join(', ')}\n`)
    if (reply.target.length && method === 'restart') say(`[xpm] restarted ${(files.length ? reply.target : targets).join(', ')}\n`)
    if (finished.length) say(`[xpm] finished with exit code 0: id ${finished.join(', ')}\n`)
    await showList(client)
  }
  if (reply.reloadError) {
    const reloadFailure = reply.reloadError instanceof XpmError ? reply.reloadError : XpmError.from(reply.reloadError)
    // the failed process's last stderr lines, as a failed start shows them
    const failed = (Array.isArray(reloadFailure.details) ? reloadFailure.details : []).find((r) => r?.failed?.stderr?.length)?.failed
    if (failed) io.stderr.write(`[xpm] last lines of ${failed.label}${failed.pid ? ` (pid ${failed.pid})` : ''} on stderr:\n${failed.stderr.map((l) => '  ' + l).join('\n')}\n`)
    throw reloadFailure
  }
  if (failures.length) {
    await require('../retrying').sayRetrying(client, failures, io.stderr)
    throw startFailed(failures, io.stderr)
  }
}

// `restart <app> --name <new>` (and reload, which cannot keep processes under the old name).
async function renameApp (client, method, expanded, newName, changes, opts, onProgress, io) {
  const { say, printJson, showList } = io
  const { wire } = require('../targets')
  const { applyChanges } = require('../spec-changes')
  const { longRequest } = require('../long-request')
  const shown = await client.request('show', { target: wire(expanded), fields: ['name', 'spec'] })
  const apps = unique(shown.map((p) => p.name))
  if (apps.length !== 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--name renames one app; ${expanded.join(', ')} names ${apps.length} (${apps.join(', ')})`)
  let spec = { ...applyChanges(shown[0].spec, changes || {}), name: newName }
  if (opts.updateEnv) spec = { ...spec, env: withoutInternals(io.env) }
  if (method === 'reload') say('[xpm] renaming restarts the app: its processes cannot keep serving under the old name\n')
  const done = await waitFor([longRequest(client, 'restart', { target: wire(expanded), specs: [spec], rename: newName }, { onProgress })], expanded, io)
  if (!done) return
  const [result] = done
  if (opts.json) printJson(result)
  else {
    say(`[xpm] renamed ${result.renamedFrom} to ${result.name} and restarted it (ids ${result.ids.join(', ')})\n`)
    await showList(client)
  }
  if (result.failures.length) throw startFailed(result.failures.map((f) => ({ ...f, name: result.name })), io.stderr)
}

function startFailed (failures, stderr = process.stderr) {
  const first = failures[0]
  if (first.stderr?.length) stderr.write(`[xpm] last lines of ${first.name ?? ''}[${first.instance}] on stderr:\n${first.stderr.map((l) => '  ' + l).join('\n')}\n`)
  return new XpmError(first.code === 'XPM_ERR_CANCELLED' ? 'XPM_ERR_CANCELLED' : 'XPM_ERR_START_FAILED',
    `${failures.length} process(es) did not come back online: ${first.message}`, { details: failures })
}

function describeStep (s) {
  const who = s.instance === undefined ? s.app : `${s.app}[${s.instance}]`
  switch (s.type) {
    case 'begin': return `[xpm] reloading ${s.app} (${s.instances.length} instance${s.instances.length === 1 ? '' : 's'}, ${s.mode} mode)`
    case 'fork': return `[xpm] ${who}: new worker pid ${s.newPid} starting (old pid ${s.oldPid} keeps serving)`
    case 'ready': return `[xpm] ${who}: new pid ${s.newPid} ready`
    case 'stopped': return `[xpm] ${who}: old pid ${s.oldPid} stopped`
    case 'skip': return `[xpm] ${who}: ${s.reason}`
    case 'restart': return `[xpm] ${who}: ${s.reason}`
    case 'restarted': return `[xpm] ${who}: restarted, pid ${s.pid}`
    case 'failed': return `[xpm] ${who}: FAILED – ${s.reason}`
    case 'end': return s.ok ? `[xpm] ${s.app}: reload done` : `[xpm] ${s.app}: reload stopped${s.serving === false ? '' : '; the old workers keep serving'}`
    default: return null
  }
}

module.exports = {
  stop: (ctx, input) => stopOrDelete('stop', ctx, input),
  delete: (ctx, input) => stopOrDelete('delete', ctx, input),
  restart: (ctx, input) => restartOrReload('restart', ctx, input),
  reload: (ctx, input) => restartOrReload('reload', ctx, input),
  startOrRestart: (ctx, { ecosystem, options }) => restartOrReload('restart', ctx, { targets: ecosystem, options }, { filesOnly: 'startOrRestart' }),
  startOrReload: (ctx, { ecosystem, options }) => restartOrReload('reload', ctx, { targets: ecosystem, options }, { filesOnly: 'startOrReload' }),
  startOrGracefulReload: (ctx, { ecosystem, options }) => restartOrReload('reload', ctx, { targets: ecosystem, options }, { filesOnly: 'startOrGracefulReload' }),
  describeStep,
  startFailed
}
