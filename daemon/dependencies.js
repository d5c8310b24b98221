'use strict'

const { XpmError } = require('../lib/shared/errors')
const { abortable } = require('../lib/shared/abortable')
const { STATUS } = require('./model/process-state')
const { isReady, isWantedUp } = require('./model/predicates')
const { findCycle } = require('../lib/shared/config/dependencies')
const { SPEC_DEFAULTS } = require('../lib/shared/config/spec-defaults')
const { describeNotReady } = require('./not-ready')

// depends_on in the daemon: an app starts only once the apps it depends on are ready, or, for a
// one-shot job (autorestart: false), have exited 0; stops go the other way, dependents first.
// The config model refuses cycles and unknown names (lib/shared/config/dependencies.js); a start request
// with a cycle from a hand-written client is refused (refuseCycles), and the stop order breaks one.

const isJob = (spec) => spec.autorestart === false
const ended = (i) => i.status === STATUS.STOPPED || i.status === STATUS.ERRORED
const exitedZero = (i) => i.status === STATUS.STOPPED && i.lastExit?.code === 0 && !i.lastExit.signal

// The verdict on one dependency right now: 'ready', null (not yet: keep waiting) or the reason it
// will not be (a job that failed, an app stopped, errored or deleted).
function verdict (app) {
  if (!app || app.deleted) return 'it is not managed (deleted meanwhile?)'
  const instances = app.instances
  if (!instances.length) return 'it has no instances'
  if (isJob(app.spec)) {
    if (!instances.every(ended)) return null
    const failed = instances.find((i) => !exitedZero(i))
    if (!failed) return 'ready'
    const e = failed.lastExit
    if (!e) return `it is ${failed.status} (the job has not run)` // stopped before it ran
    return `the job ${failed.status === STATUS.ERRORED ? 'errored' : `exited with ${e.signal ? `signal ${e.signal}` : `code ${e.code}`}`}`
  }
  if (instances.every(isReady)) return 'ready'
  // stopped and not wanted up (the user stopped it): it will not be ready; stopped but wanted (a
  // restart passing through, a restore about to start it): not yet
  const down = instances.find((i) => i.status === STATUS.ERRORED || (i.status === STATUS.STOPPED && !isWantedUp(i)))
  if (down) return `it is ${down.status}`
  return null // launching, waiting restart, stopping on its way back (a restart): not yet
}

// Where a dependent app stands while its start waits for its dependencies, and after they failed
// it: app → { dependency, failed: false } | { dependency, failed: true, reason, at }. An app that
// was never started because a dependency failed shows `stopped` like an app the user stopped;
// this is what tells them apart (/readyz, daemon/runtime/probes.js). Forgotten when the app is
// started again, stopped or deleted by the user; the App object itself going away drops it too.
const states = new WeakMap()

function dependencyState (app) {
  return states.get(app) ?? null
}

// Resolves once every dependency of `spec` is ready; rejects with XPM_ERR_DEPENDENCY_FAILED when
// one will not be, or with the signal's reason when the dependent's start is cancelled.
// starts: name → the promise of that app's start in the same request (awaited first: a dependency
// started alongside is judged once its own start has done what it could). A dependency that is
// not ready within its own listen_timeout after that (a crash loop: `waiting restart`, again and
// again) fails the dependent's start: the command says why and exits non-zero, instead of
// waiting for it to give up minutes later. The failure is said where a user looks: the start's
// reply, the journal (`xpm why`, `xpm show`: a 'dependency-failed' event per instance of the
// dependent) and daemon.log.
async function waitForDependencies (supervisor, spec, starts, signal) {
  const names = spec.dependsOn || []
  const app = supervisor.apps.get(spec.name)
  forgetOnStop(supervisor)
  try {
    await Promise.all(names.map(async (name) => {
      if (name === spec.name) return
      if (app) states.set(app, { dependency: name, failed: false })
      const started = starts?.get(name)
      if (started) await abortable(started, signal)
      if (!supervisor.apps.has(name)) {
        throw failed(spec.name, name, `xpm does not manage an app named "${name}"; start it first or with ${spec.name}`)
      }
      await untilSettled(supervisor, name, signal, spec.name)
    }))
    if (app) states.delete(app)
  } catch (err) {
    if (app) states.delete(app)
    if (err.code !== 'XPM_ERR_DEPENDENCY_FAILED' || !app || signal?.aborted) throw err
    const { dependency, reason } = err.details
    states.set(app, { dependency, failed: true, reason: err.message.replace(/^\S+ was not started: /, ''), at: Date.now() })
    supervisor.logger?.warn({ event: 'dependency-failed', app: app.name, dependency, reason }, err.message)
    for (const inst of app.instances) {
      supervisor.emit('dependency-failed', { name: app.name, id: inst.id, instance: inst.index, dependency, reason })
    }
    supervisor.emit('change')
    throw err
  }
}

// A user's stop or delete of an app (the 'command' event of model/app.js) clears its record of
// a failure once no instance of it is wanted up: a stop of some of its instances leaves the
// others held back. (An instance launched since, by a restart or a reload, speaks for itself:
// daemon/runtime/probes.js.)
const forgetting = new WeakSet()
function forgetOnStop (supervisor) {
  if (forgetting.has(supervisor)) return
  forgetting.add(supervisor)
  supervisor.subscribe({
    command: ({ type, instances }) => {
      if (type !== 'stop') return
      for (const app of new Set(instances.map((i) => i.app))) {
        if (app && states.get(app)?.failed && !app.instances.some(isWantedUp)) states.delete(app)
      }
    }
  })
}

function untilSettled (supervisor, name, signal, dependent) {
  return new Promise((resolve, reject) => {
    let idling = false
    const patience = supervisor.apps.get(name)?.spec.listenTimeout ?? SPEC_DEFAULTS.listenTimeout
    // a job may run for as long as it takes; an app that is not ready this long after its own
    // start has done what it could is crash-looping or hanging
    const giveUp = () => {
      const app = supervisor.apps.get(name)
      if (settled) return
      if (verdict(app) !== null) return check()
      settled = true
      cleanup()
      const why = app.instances.map(describeNotReady).filter(Boolean)
      reject(failed(dependent, name, `it was not ready ${Math.round(patience / 1000)} s after its start${why.length ? ` (${why.slice(0, 3).join('; ')})` : ''}`))
    }
    const timer = isJob(supervisor.apps.get(name)?.spec ?? {}) ? null : setTimeout(giveUp, patience)
    const check = () => {
      const app = supervisor.apps.get(name)
      const v = verdict(app)
      if (v === null) return
      // an operation of the dependency under way (a restart passes through stopped): judged
      // once it is done
      if (v !== 'ready' && app?.lane.busy && !app.deleted) {
        if (!idling) {
          idling = true
          app.lane.idle().then(() => { idling = false; if (!settled) check() })
        }
        return
      }
      settled = true
      cleanup()
      if (v === 'ready') resolve()
      else reject(failed(dependent, name, v))
    }
    let settled = false
    const onAbort = () => { settled = true; cleanup(); reject(signal.reason) }
    const cleanup = () => {
      clearTimeout(timer)
      unwatch(supervisor, check)
      signal?.removeEventListener('abort', onAbort)
    }
    if (signal?.aborted) return reject(signal.reason)
    watch(supervisor, check)
    signal?.addEventListener('abort', onAbort, { once: true })
    check()
  })
}

// One 'change' listener per supervisor for every start waiting on a dependency, however many.
const waiting = new WeakMap() // supervisor → { checks: Set, dispose }

function watch (supervisor, check) {
  let entry = waiting.get(supervisor)
  if (!entry) {
    entry = { checks: new Set(), dispose: null }
    entry.dispose = supervisor.subscribe({ change: () => { for (const c of [...entry.checks]) c() } })
    waiting.set(supervisor, entry)
  }
  entry.checks.add(check)
}

function unwatch (supervisor, check) {
  const entry = waiting.get(supervisor)
  if (!entry) return
  entry.checks.delete(check)
  if (entry.checks.size) return
  entry.dispose()
  waiting.delete(supervisor)
}

// A start request whose apps depend on each other in a circle would wait forever: refused (the
// CLI's config check refuses it first; this is for a hand-written client).
function refuseCycles (specs) {
  const cycle = findCycle(specs)
  if (cycle) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `depends_on goes round in a circle: ${cycle.join(' → ')}`, { details: { cycle } })
  }
}

function failed (dependent, name, why) {
  return new XpmError('XPM_ERR_DEPENDENCY_FAILED', `${dependent} was not started: it depends on ${name}, and ${why}`,
    { details: { app: dependent, dependency: name, reason: why } })
}

// Calls fn(app, after) for every app of `apps` (an iterable), all in this tick, dependents first:
// `after` is null, or a promise that settles once fn's work for the apps of the same set that
// depend on this one is done. The caller queues its operation at once (so later commands queue
// behind it, and earlier ones are cancelled as the overlap rules say) and waits for `after`
// inside it: a stop of several apps stops dependents before what they depend on, unrelated
// apps at once. A cycle (not from a checked config) is broken, never waited on. Resolves with
// fn's results in the order of `apps`.
function inReverseDependencyOrder (apps, fn) {
  const list = [...apps]
  const byName = new Map(list.map((a) => [a.name, a]))
  const dependents = new Map(list.map((a) => [a.name, []]))
  for (const app of list) {
    for (const dep of app.spec.dependsOn || []) if (byName.has(dep) && dep !== app.name) dependents.get(dep).push(app)
  }
  const runs = new Map()
  const visiting = new Set()
  const runOf = (app) => {
    if (runs.has(app.name)) return runs.get(app.name)
    if (visiting.has(app.name)) return null // a cycle: do not wait on it
    visiting.add(app.name)
    const before = dependents.get(app.name).map(runOf).filter(Boolean)
    visiting.delete(app.name)
    const run = Promise.resolve(fn(app, before.length ? Promise.allSettled(before) : null))
    runs.set(app.name, run)
    return run
  }
  return Promise.all(list.map(runOf))
}

// How many apps deep the longest depends_on chain among `specs` is (1: no dependencies): a start
// takes about that many listen_timeouts at worst, which the CLI's deadline allows for.
function chainDepth (specs) {
  const byName = new Map(specs.map((s) => [s.name, s]))
  const depth = new Map()
  const visiting = new Set()
  const of = (spec) => {
    if (depth.has(spec.name)) return depth.get(spec.name)
    if (visiting.has(spec.name)) return 1
    visiting.add(spec.name)
    const d = 1 + Math.max(0, ...(spec.dependsOn || []).map((n) => byName.get(n)).filter(Boolean).map(of))
    visiting.delete(spec.name)
    depth.set(spec.name, d)
    return d
  }
  return Math.max(1, ...specs.map(of))
}

module.exports = { waitForDependencies, inReverseDependencyOrder, chainDepth, verdict, refuseCycles, dependencyState }
