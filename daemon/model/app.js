'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { OpLane } = require('./op-lane')
const { Instance } = require('./instance')
const { reloadInstances } = require('./reload')
const { launchAll } = require('./app-launch')
const { startApp } = require('./app-start')
const { runHeldBack } = require('./held-back')
const { reshape, NO_CHANGE, scaleApp, addCopy } = require('./app-scale')
const { isWantedUp } = require('./predicates')
const { listenModeChange, stopAllForModeChange } = require('./listen-mode')
const { shuttingDown } = require('../phase')

// One app: its spec, its instances and the queue of operations on them. Every command that
// changes the app goes through run() (see overlap-rules.js for how commands overlap); only this
// class writes its fields (#private: everyone reads them through getters), and only Instance
// writes an instance's.
class App {
  // context, from the registry (daemon/supervisor.js), shared by its instances:
  //   events          the model's event bus (observers subscribe there)
  //   ids             the process id allocator (model/ids.js)
  //   launcherFor     spec → the launcher of its mode (daemon/launchers)
  //   prober          runs readiness probes for the start-up gate (daemon/health), or null
  //   forkPacer       a few forks per turn of the event loop (model/fork-pacer.js), or null
  //   closing()       whether the daemon shuts down
  //   forget(app)     takes a deleted app out of the registry
  //   untilDependencies(app, signal)  null, or for an app held back by a failed dependency
  //                   (daemon/dependencies.js), resolves once they are ready, or rejects
  //   lastErrorLines  instance → its last stderr lines (daemon/logs), for a failed start's reply
  #name
  #spec
  #listens
  #instances = Object.freeze([]) // replaced, never changed in place
  #context
  #lane
  // The app's part of the intent: `deleting` once a delete of the whole app is accepted (it is
  // no longer defined, even while its processes stop), `desiredSpec` the spec the last accepted
  // command asked for (the operations apply it to `spec` in turn). Instances hold their own.
  #deleting = false
  #deleted = false
  #desiredSpec

  constructor ({ spec, listens = false, context }) {
    this.#name = spec.name
    this.#spec = spec
    this.#listens = listens
    this.#context = context
    this.#lane = new OpLane(spec.name)
    this.#desiredSpec = spec
    Object.preventExtensions(this) // nothing outside hangs its own fields on an app
  }

  get name () { return this.#name }
  get spec () { return this.#spec }
  get listens () { return this.#listens }
  get instances () { return this.#instances }
  get context () { return this.#context }
  get lane () { return this.#lane }
  get deleting () { return this.#deleting }
  get deleted () { return this.#deleted }
  get desiredSpec () { return this.#desiredSpec }

  // A command was accepted with a new spec, or a new count (app-scale.js): the intent's spec.
  desire (spec) {
    this.#desiredSpec = spec
  }

  // Whether the user wants some instance of this app up (the intent, never a status).
  get running () {
    return this.instances.some(isWantedUp)
  }

  // The instances that are part of the intent (not being removed by a scale-down or a delete).
  get kept () {
    return this.instances.filter((i) => !i.removing)
  }

  // A command was accepted: record what it asks for, at once (the state keeper saves it before
  // the command is acknowledged; docs/architecture.md, "Intent"). An instance being removed (its
  // delete or scale-down accepted) is never wanted up again.
  want (instances, wanted, { by = wanted ? 'start' : 'stop', removing = false } = {}) {
    for (const inst of instances) if (!(wanted && inst.removing)) inst.setIntent({ wanted, removing: removing || inst.removing, by })
    this.emit('intent', { name: this.name, id: null, instance: null, wanted: null }) // the app's part (its instances emitted theirs)
  }

  emit (event, data) { this.context.events.emit(event, data) }

  get launcher () {
    return this.context.launcherFor(this.spec)
  }

  markListening () {
    if (this.listens) return
    this.#listens = true
    this.emit('change')
  }

  // Nothing brings processes up once the daemon shuts down (a restore finishing during
  // `xpm kill`, a policy restart): only stops and deletes still run then.
  run (kind, fn, options) {
    if (this.context.closing?.() && !TAKE_DOWN.has(kind)) return Promise.reject(shuttingDown())
    return this.lane.run(kind, async (signal) => {
      if (this.deleted) throw notFound(this.name)
      if (this.context.closing?.() && !TAKE_DOWN.has(kind)) throw shuttingDown()
      // held back by a failed dependency: brought up once its dependencies are ready (held-back.js)
      const waiting = TAKE_DOWN.has(kind) ? null : this.context.untilDependencies?.(this, signal)
      return waiting ? runHeldBack(this, waiting, fn, signal) : fn(signal)
    }, options)
  }

  // ---- structure (called inside operations only) --------------------------------------------

  addInstances (indexes, ids = []) {
    const added = indexes.map((index, n) => {
      return new Instance({ id: ids[n] ?? null, app: this, index, context: this.context })
    })
    this.#instances = Object.freeze([...this.instances, ...added].sort((a, b) => a.index - b.index))
    for (const inst of added) this.emit('added', inst)
    this.emit('change')
    return added
  }

  removeInstances (removed) {
    this.#instances = Object.freeze(this.instances.filter((i) => !removed.includes(i)))
    for (const inst of removed) this.context.ids.release(inst) // given back in a microtask (model/ids.js)
    for (const inst of removed) this.emit('removed', inst)
    this.emit('change')
  }

  // A command changes the count (or the spec) at accept: instances added or retired at once
  // (app-scale.js); ids are kept when the count is unchanged.
  reshape (change) {
    return reshape(this, change)
  }

  // An operation that brings processes up, or the stop of the whole app, first takes the spec
  // the intent holds (desiredSpec, written at accept): a command whose operation was cancelled
  // (a restart with a new spec, then a stop) leaves no other spec behind.
  adoptSpec () {
    if (this.spec === this.desiredSpec) return
    this.#spec = this.desiredSpec
    this.emit('change')
  }

  // Stops instances no longer in the intent (drained first on a scale-down: the app serves on),
  // then unlists them: one that takes kill_timeout to exit stays listed (and saved) until it has.
  async retire (removed, cause = 'scale') {
    await Promise.all(removed.map((i) => i.stop(cause)))
    this.removeInstances(removed.filter((i) => this.instances.includes(i)))
  }

  // ---- operations -------------------------------------------------------------------------
  // `xpm start`, with a spec or without, and a restore's convergence (app-start.js).
  start (options) {
    return startApp(this, options)
  }

  addCopy (spec, options) { // `xpm start app.js -f` next to a running app.js (app-scale.js)
    return addCopy(this, spec, options)
  }

  // PM2's smart start of a name or id: what runs restarts, what is stopped starts.
  startOrRestart (instances = this.kept, { onProgress = null } = {}) {
    instances = instances.filter((i) => !i.removing)
    this.want(instances, true)
    return this.run('restart', async (signal) => {
      this.adoptSpec()
      const alreadyOnline = instances.filter((i) => i.pid).map((i) => i.id)
      const targets = instances.filter((i) => this.instances.includes(i))
      const result = await this.launchAll(targets, signal, onProgress, (i) => i.pid ? i.restart('start', signal) : i.start(signal))
      return { name: this.name, action: 'started', alreadyOnline, ...result }
    })
  }

  // Starts instances at once and collects the ones that did not reach online (app-launch.js).
  launchAll (instances, signal, onProgress = null, start = (i) => i.start(signal)) {
    return launchAll(this, instances, signal, onProgress, start)
  }

  // after: a promise to wait for, in the operation, before the processes are stopped (the stops
  // of the apps that depend on this one: depends_on); the operation is queued at once all the same.
  // The whole app: every operation on it is cancelled (overlap-rules.js). Some of its instances:
  // only the work on those is cancelled (their intent aborts it) and they stop at once; the
  // operation under way goes on with the others.
  stop (instances = this.instances, kind = 'stop', { after = null } = {}) {
    this.want(instances, false, { by: kind })
    // as PM2: stopping the whole app turns its watch off until `restart --watch` or its file
    if (kind === 'stop' && this.spec.watch && !this.isPart(instances)) {
      this.#spec = { ...this.spec, watch: false }
      this.#desiredSpec = { ...this.desiredSpec, watch: false }
    }
    this.emit('command', { type: 'stop', instances }) // policies: a user stop also stops watch and cron
    const stopAll = async () => {
      if (after) await after
      await Promise.all(instances.map((i) => i.stop(kind)))
      if (!this.isPart(instances)) this.adoptSpec() // nothing runs: the spec of the intent
      return { ids: instances.map((i) => i.id) }
    }
    if (this.isPart(instances)) return this.lane.runBeside(kind, stopAll)
    return this.run(kind, stopAll)
  }

  // Whether `instances` leave some instance of the app out.
  isPart (instances) {
    return !this.instances.every((i) => instances.includes(i))
  }

  // With a spec (a restart from an ecosystem file, or with changed options) the app takes it
  // first; instances it adds are started, the ones it removes stopped.
  // A restart of a stopped instance starts it (as PM2's): the targets are wanted up.
  // A spec that turns reuse_port on or off restarts every instance that runs, all stopped first
  // (listen-mode.js).
  restart (instances = this.kept, { reason = 'manual', onProgress = null, spec = null } = {}) {
    const modeChange = spec ? listenModeChange(this.desiredSpec, spec) : null
    if (modeChange) instances = [...new Set([...instances, ...this.kept.filter((i) => isWantedUp(i) && i.processes().length)])]
    instances = instances.filter((i) => !i.removing)
    this.want(instances, true)
    const { added, retired } = spec ? this.reshape({ spec, wantAdded: this.running }) : NO_CHANGE
    return this.run('restart', async (signal) => {
      await retired
      signal.throwIfAborted()
      this.adoptSpec()
      if (modeChange) await stopAllForModeChange(this, reason)
      signal.throwIfAborted()
      const targets = instances.filter((i) => this.instances.includes(i) && !i.removing)
      const restarted = await this.launchAll(targets, signal, onProgress, (i) => i.restart(reason, signal))
      const fresh = added.filter((i) => i.wanted && this.instances.includes(i))
      if (!fresh.length) return restarted
      const started = await this.launchAll(fresh, signal, onProgress)
      return { ids: [...restarted.ids, ...started.ids], failures: [...restarted.failures, ...started.failures], finished: [...restarted.finished, ...started.finished] }
    })
  }

  // See reload.js. Policy restarts pass a coalesce key: a burst of them costs one reload.
  // Each job that ran says how it ended ('reloaded': success, failed or cancelled; the
  // xpm_reloads_total counter of daemon/prometheus).
  // onlyIf(instance): checked when the job runs, not when it is queued; instances it refuses are
  // left alone and listed in `dropped` (a policy restart raised for a process that a reload
  // queued before it has already replaced: daemon/policies/replace.js).
  reload (instances = this.kept, { spec = null, reason = 'reload', onStep = () => {}, coalesce = null, onlyIf = null } = {}) {
    const change = spec ? this.reshape({ spec, wantAdded: this.running }) : NO_CHANGE
    return this.run('reload', async (signal) => {
      this.adoptSpec()
      const dropped = onlyIf ? instances.filter((i) => !onlyIf(i)).map((i) => i.id) : []
      if (onlyIf) instances = instances.filter(onlyIf)
      if (onlyIf && !instances.length) return { name: this.name, replaced: [], restarted: [], skipped: [], failed: null, dropped }
      try {
        const result = await reloadInstances(this, instances, { change, reason, onStep, signal })
        this.emit('reloaded', { app: this.name, reason, result: result.failed ? 'failed' : 'success' })
        return dropped.length ? { ...result, dropped } : result
      } catch (err) {
        this.emit('reloaded', { app: this.name, reason, result: err.code === 'XPM_ERR_CANCELLED' || signal.aborted ? 'cancelled' : 'failed' })
        throw err
      }
    }, { coalesce })
  }

  // `xpm scale`: the change as typed ('4', '+2', '-1'). New instances start when the app runs.
  scale (change) {
    return scaleApp(this, change)
  }

  // Removes the given instances (all: the app itself) once they are stopped.
  // Some instances: they are removed from the intent at once and stopped beside the operation
  // under way (as a stop of some instances); the whole app: no longer defined, every operation
  // cancelled.
  delete (instances = this.instances, { after = null } = {}) {
    const whole = !this.isPart(instances)
    if (whole) this.#deleting = true
    this.want(instances, false, { by: 'delete', removing: true })
    this.emit('command', { type: 'stop', instances })
    const remove = async () => {
      if (after) await after // see stop()
      await this.retire(instances, 'delete')
      if (!this.instances.length) {
        this.#deleted = true
        await this.context.forget?.(this)
      }
      return { ids: instances.map((i) => i.id), deleted: this.deleted }
    }
    const deleting = whole ? this.run('delete', remove) : this.lane.runBeside('delete', remove)
    deleting.finally(() => { if (!this.deleted) this.#deleting = false }).catch(() => {})
    return deleting
  }

  ids () {
    return this.instances.map((i) => i.id)
  }
}

const TAKE_DOWN = new Set(['stop', 'delete', 'kill'])

function notFound (name) {
  return new XpmError('XPM_ERR_APP_NOT_FOUND', `No app "${name}" (it was deleted)`, { details: { target: name } })
}

module.exports = { App, notFound }
