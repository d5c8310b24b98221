'use strict'

const { EventBus } = require('./event-bus')
const { XpmError } = require('../lib/shared/errors')
const { App } = require('./model/app')
const { refuseModeChangeOnReload } = require('./model/listen-mode')
const { PortClaims } = require('./model/port-claims')
const { Ids } = require('./model/ids')
const { ForkPacer } = require('./model/fork-pacer')
const { TurnBudget } = require('../lib/shared/turn-budget')
const { DeleteWaits } = require('./delete-waits')
const { createLaunchers } = require('./launchers')
const { waitForDependencies, inReverseDependencyOrder, chainDepth, refuseCycles, dependencyState } = require('./dependencies')
const { instancesOfTarget, appNamed } = require('./targets')
const { lastErrorLines } = require('./logs/last-error-lines')
const { shuttingDown } = require('./phase')
const { wireEvents, wire } = require('./supervisor-wiring')
const { listRows, showRows } = require('./projection')
const { announce, registered, merge, heldBack } = require('./command-results')
const { renameApp, renameUnderWay } = require('./rename')

// The registry of apps and the commands on them. A command resolves its target to instances,
// groups them by app and hands each app its part: apps run their parts at the same time (each
// app's own operations one after another, see model/op-lane.js). This file never writes an
// app's or an instance's fields; it only adds and forgets apps.
//
// Events: the registry is the model's event bus; daemon/events.js lists every event it carries
// (15), the shape of each payload, who emits it and who listens. Observers take them with
// subscribe(handlers) → dispose (daemon/event-bus.js). The registry's own listeners:
// supervisor-wiring.js; the rows of list and show: projection.js.
class Supervisor extends EventBus {
  // pidsDir: XPM_HOME/pids, where processes without a pid_file get theirs (as PM2), or null
  constructor ({ launcher = null, pidsDir = null, logSink = null, metrics = null, logger = null, prober = null, otelEnv = {} } = {}) {
    super()
    this.launcherFor = launcher ?? createLaunchers({ pidsDir })
    this.pidsDir = pidsDir
    this.logSink = logSink
    this.metrics = metrics
    this.logger = logger
    this.apps = new Map() // name → App
    this.pm2Io = new Map() // id → the @pm2/io metrics its process last sent (supervisor-wiring.js)
    this.renaming = new Map() // new name → { from, spec, listens, slots, done } of a rename under way (rename.js)
    this.ids = new Ids()
    this.deleteWaits = new DeleteWaits(() => this.refuseWhenClosing())
    this.closing = false
    // what every App and Instance is given (model/app.js); the supervisor is the event bus
    this.context = {
      events: this,
      ids: this.ids,
      launcherFor: (spec) => this.launcherFor(spec),
      otelEnv, // the OTEL_* variables of the daemon's own environment (docs/otel.md)
      prober, // runs readiness probes for the instances' start-up gate (daemon/health)
      forkPacer: new ForkPacer(),
      signalTurns: new TurnBudget(), // a stop of many processes signals them over several turns (model/stop-process.js)
      ports: new PortClaims(), // which app listens where: a second app on a port is refused
      closing: () => this.closing,
      forget: (app) => this.forget(app),
      // a restart, reload or scale of an app whose start failed on a dependency waits for it
      // again, as its start did (with the dependencies the intent's spec names)
      untilDependencies: (app, signal) => dependencyState(app)?.failed ? waitForDependencies(this, app.desiredSpec, null, signal) : null,
      lastErrorLines: (inst, opts) => this.lastErrorLines(inst, opts)
    }
    wireEvents(this)
  }

  get nextId () { return this.ids.next }

  // ---- lookup -------------------------------------------------------------------------------

  allInstances () {
    const out = []
    for (const app of this.apps.values()) out.push(...app.instances)
    return out.sort((a, b) => a.id - b.id)
  }

  // A target → the instances it names, in id order (daemon/targets.js).
  resolve (target, { allowEmpty = false } = {}) {
    return instancesOfTarget(this.apps, target, { allowEmpty })
  }

  // The apps a target names, in the order of their first instance.
  appsOf (target) {
    return [...new Set(this.resolve(target).map((i) => i.app))]
  }

  app (name) {
    return appNamed(this.apps, name)
  }

  // Runs fn(app, itsInstances) for every app the target names, all apps at once. With
  // onProgress, first tells the client how long the command should take (see announce()).
  // ordered: dependents before the apps they depend on (a stop, a delete: depends_on).
  // A target that names an app being deleted: the command comes after that delete, so it waits
  // for it and applies to what the name means then (an app started anew meanwhile: the last word
  // wins), or fails as not found; one that names either side of a rename under way applies to
  // the renamed app. Otherwise the command reaches the apps in this tick.
  eachApp (target, fn, options = {}) {
    this.refuseWhenClosing()
    const renaming = renameUnderWay(this, target) // either name the list shows (rename.js)
    if (renaming) return renaming.done.then(() => this.eachApp(renaming.target, fn, options))
    const deleting = [...new Set(this.resolve(target).map((i) => i.app))].filter((app) => app.deleting && !app.deleted)
    if (!deleting.length) return this.eachAppNow(target, fn, options)
    return this.deleteWaits.after(deleting[0], () => this.eachApp(target, fn, options)) // delete-waits.js
  }

  eachAppNow (target, fn, { onProgress = null, stop = false, start = false, ordered = false } = {}) {
    this.refuseWhenClosing()
    const byApp = new Map()
    for (const inst of this.resolve(target)) {
      if (!byApp.has(inst.app)) byApp.set(inst.app, [])
      byApp.get(inst.app).push(inst)
    }
    announce(onProgress, [...byApp.keys()].map((app) => app.spec), { stop, start })
    if (ordered) return inReverseDependencyOrder(byApp.keys(), (app, after) => fn(app, byApp.get(app), after))
    return Promise.all([...byApp].map(([app, instances]) => fn(app, instances)))
  }

  refuseWhenClosing () {
    if (this.closing) throw shuttingDown()
  }

  // ---- the registry -------------------------------------------------------------------------

  // slots: [{ index, id }] to register stopped instances with saved ids (a restore); default:
  // none (the first start creates them from the spec).
  addApp (spec, { listens = false, slots = [] } = {}) {
    const app = new App({ spec, listens, context: this.context })
    this.apps.set(spec.name, app)
    if (slots.length) app.addInstances(slots.map((s) => s.index), slots.map((s) => s.id))
    else this.emit('change')
    return app
  }

  async forget (app) {
    if (this.apps.get(app.name) === app) this.apps.delete(app.name)
    this.emit('change')
    await this.logSink?.closeApp(app.name)
  }

  wire (instance, handle) {
    wire(this, instance, handle)
  }

  // fields: only these (lib/shared/process-fields.js), for replies that carry only what is shown.
  list ({ fields = null } = {}) {
    return listRows(this, { fields })
  }

  show (target, { fields = null } = {}) {
    return showRows(this, target, { fields })
  }

  lastErrorLines (inst, opts) {
    return lastErrorLines(this.logSink, inst, 5, opts)
  }

  // ---- commands -----------------------------------------------------------------------------

  // Starts apps from specs, all at once, as PM2's `start` (App#start): a stopped app starts with
  // the new spec, a running one from a file restarts with it; from a script it is refused, or
  // with -f gets another copy. An app being deleted is waited for, then created anew.
  // depends_on: an app waits, inside its own start operation, for the apps it depends on (those
  // started here and those already managed) to be ready, or, for one-shot jobs, to have exited 0
  // (daemon/dependencies.js); apps without dependencies start at once, as before.
  // fromScript: names of the specs that came from a script on the command line (not a file):
  // a running one is not restarted (PM2: "already launched"); force (-f) starts another copy.
  async start (specs, { force = false, onProgress = null, fromScript = [] } = {}) {
    this.refuseWhenClosing()
    refuseCycles(specs)
    announce(onProgress, specs, { stop: force, start: true, depth: chainDepth(specs) })
    const starts = new Map()
    const dependenciesOf = (spec) => spec.dependsOn?.length ? (signal) => waitForDependencies(this, spec, starts, signal) : null
    return Promise.all(specs.map((spec) => {
      const started = this.startOne(spec, { force, onProgress, fromScript: fromScript.includes(spec.name), dependencies: dependenciesOf(spec) })
      starts.set(spec.name, started)
      return started
    }))
  }

  async startOne (spec, { force, onProgress, fromScript = false, dependencies }) {
    let app = this.apps.get(spec.name)
    try {
      const again = () => this.startOne(spec, { force, onProgress, fromScript, dependencies })
      if (app?.deleting && !app.deleted) return await this.deleteWaits.after(app, again)
      if (this.renaming.has(spec.name)) return await this.renaming.get(spec.name).done.then(again) // daemon/rename.js
      if (app?.deleted) app = null
      // PM2's autostart: false registers the app, stopped (an app that runs is started anew with
      // it, as PM2 does: its instances stay wanted up); its force: true is `-f` for it alone
      const only = spec.autostart === false && !app?.running ? { instances: [], dependencies: null } : { dependencies }
      if (!app) {
        app = this.addApp(spec)
        app.reshape({ spec })
        return registered(spec, await app.start({ onProgress, ...only }))
      }
      return registered(spec, await app.start({ spec, fromScript, copy: force || spec.force === true, onProgress, ...only }))
    } catch (err) {
      if (!(err instanceof XpmError)) throw err
      return { name: spec.name, action: err.code === 'XPM_ERR_CANCELLED' ? 'cancelled' : 'failed', ids: [], failures: [{ id: null, instance: null, code: err.code, message: err.message }] }
    }
  }

  // A restore (crash recovery, update, resurrect, boot): the registered apps' processes are
  // brought to the intent already recorded, with depends_on as a start honours it.
  converge (apps) {
    this.refuseWhenClosing()
    const starts = new Map()
    const dependenciesOf = (spec) => spec.dependsOn?.length ? (signal) => waitForDependencies(this, spec, starts, signal) : null
    return apps.map((app) => {
      const started = app.start({ converge: true, dependencies: dependenciesOf(app.spec) })
      // a dependent waits for this start to have done what it could, then judges the app; its
      // failure (cancelled by a stop or delete meanwhile) is not the dependent's own
      starts.set(app.name, started.catch(() => {}))
      return started
    })
  }

  async startTarget (target, { onProgress = null } = {}) {
    const results = await this.eachApp(target, (app, instances) => app.startOrRestart(instances, { onProgress }).catch(heldBack(instances)), { onProgress, start: true, stop: true })
    return merge(results, ['ids', 'failures', 'alreadyOnline', 'finished', 'skipped'])
  }

  // Dependents stop before the apps they depend on (depends_on), unrelated apps at once.
  async stop (target, { onProgress = null } = {}) {
    return merge(await this.eachApp(target, (app, instances, after) => app.stop(instances, 'stop', { after }), { onProgress, stop: true, ordered: true }), ['ids'])
  }

  // specs: new specs by name (from an ecosystem file, or options given to restart): each app
  // takes its own before its instances restart.
  async restart (target, { onProgress = null, specs = null } = {}) {
    const results = await this.eachApp(target, (app, instances) => app.restart(instances, {
      onProgress, spec: specs?.find((s) => s.name === app.name) ?? null
    }).catch(heldBack(instances)), { onProgress, stop: true, start: true })
    return merge(results, ['ids', 'failures', 'finished', 'skipped'])
  }

  // `xpm restart <app> --name <new>` (daemon/rename.js).
  rename (target, spec, options) {
    return renameApp(this, target, spec, options)
  }

  async delete (target, { onProgress = null } = {}) {
    const results = await this.eachApp(target, async (app, instances, after) => ({ ...(await app.delete(instances, { after })), name: app.name }), { onProgress, stop: true, ordered: true })
    return { ids: results.flatMap((r) => r.ids), apps: results.filter((r) => r.deleted).map((r) => r.name) }
  }

  // One reload job per app, all apps at once. specs: new specs by name (from an ecosystem file
  // or --update-env). Throws XPM_ERR_RELOAD_FAILED when a replacement failed in some app.
  async reload (target, { specs = null, onStep = () => {}, reason = 'reload', coalesce = null } = {}) {
    refuseModeChangeOnReload(this.apps, specs) // before anything changes (model/listen-mode.js)
    const step = (event) => {
      this.logger?.info({ event: 'reload', ...event }, `reload ${event.app}: ${event.type}`)
      onStep(event)
    }
    const results = await this.eachApp(target, (app, instances) => app.reload(instances, {
      spec: specs?.find((s) => s.name === app.name) ?? null, reason, onStep: step, coalesce
    }))
    const failed = results.filter((r) => r.failed)
    if (failed.length) {
      const f = failed[0].failed
      // the label once; whether anything still serves depends on the mode (model/reload.js)
      const now = f.serving ? 'the old worker keeps serving' : `${f.label} is ${f.status}${f.status === 'waiting restart' ? ' (xpm keeps restarting it)' : ''}, not serving`
      throw new XpmError('XPM_ERR_RELOAD_FAILED',
        `Reload of ${failed.map((r) => r.name).join(', ')} stopped: ${f.replacement ? 'the replacement of ' : ''}${f.label}${f.pid ? ` (pid ${f.pid})` : ''} ${f.reason}; ${now}`,
        { details: results })
    }
    return results
  }

  // target: any target form that names one app (its name, one of its ids, its script).
  async scale (target, change) {
    this.refuseWhenClosing()
    const apps = this.apps.has(String(target)) ? [this.apps.get(String(target))] : this.appsOf(target)
    if (apps.length !== 1) {
      throw new XpmError('XPM_ERR_BAD_ARGUMENT', `scale changes one app; "${target}" names ${apps.length} (${apps.map((a) => a.name).join(', ')})`, { details: { target } })
    }
    // the count is recorded at accept: a scale sent during a delete of the app comes after it
    if (apps[0].deleting && !apps[0].deleted) return this.deleteWaits.after(apps[0], () => this.scale(target, change))
    return apps[0].scale(change)
  }

  reset (target) {
    const instances = this.resolve(target)
    for (const inst of instances) inst.resetCounters()
    this.logger?.info({ event: 'reset', target: String(target), ids: instances.map((i) => i.id) }, `reset the restart counters of ${target}`)
    return { ids: instances.map((i) => i.id) }
  }

  // `xpm kill`: no new command is taken, every operation in flight is cancelled and every
  // process of every app is stopped.
  async close () {
    this.beginClose()
    await inReverseDependencyOrder(this.apps.values(), (app, after) => app.stop(app.instances, 'kill', { after }).catch(() => {}))
  }

  beginClose () {
    this.closing = true
  }
}

module.exports = { Supervisor }
