'use strict'

const { XpmError } = require('../../lib/errors')
const { STATUS } = require('../process-state')
const { OpLane } = require('./op-lane')
const { reloadInstances } = require('../reload')
const { planScale, scaleTarget, parseScaleChange } = require('../policies/scale')

// One app: its spec, its instances and the queue of operations on them. Every command that
// changes the app goes through run() (see overlap-rules.js for how commands overlap); only this
// class writes `spec`, `instances` and `listens`, and only Instance writes an instance's fields.
class App {
  constructor ({ spec, listens = false, hub }) {
    this.name = spec.name
    this.spec = spec
    this.listens = listens
    this.instances = []
    this.hub = hub // { launcherFor(spec), newInstance(app, index, id), emit(event, data), forget(app), lastErrorLines(instance) }
    this.lane = new OpLane(spec.name)
    this.deleting = false
    this.deleted = false
  }

  // Whether some instance is wanted up (not stopped by the user, not given up on).
  get running () {
    return this.instances.some((i) => i.status !== STATUS.STOPPED && i.status !== STATUS.ERRORED)
  }

  get launcher () {
    return this.hub.launcherFor(this.spec)
  }

  markListening () {
    if (this.listens) return
    this.listens = true
    this.hub.emit('change')
  }

  run (kind, fn, options) {
    return this.lane.run(kind, async (signal) => {
      if (this.deleted) throw notFound(this.name)
      return fn(signal)
    }, options)
  }

  // ---- structure (called inside operations only) --------------------------------------------

  addInstances (indexes, ids = []) {
    const added = indexes.map((index, n) => this.hub.newInstance(this, index, ids[n] ?? null))
    this.instances = [...this.instances, ...added].sort((a, b) => a.index - b.index)
    this.hub.emit('change')
    return added
  }

  removeInstances (removed) {
    this.instances = this.instances.filter((i) => !removed.includes(i))
    for (const inst of removed) this.hub.emit('removed', inst)
    this.hub.emit('change')
  }

  // A new spec keeps instance ids when the count is unchanged, adds or removes trailing ones
  // otherwise. Removed instances must be stopped by the caller.
  applySpec (spec) {
    this.spec = spec
    const plan = planScale(this.instances.map((i) => i.index), spec.instances)
    const removed = this.instances.filter((i) => plan.remove.includes(i.index))
    this.removeInstances(removed)
    return { added: this.addInstances(plan.add), removed }
  }

  // ---- operations -------------------------------------------------------------------------

  // With a spec: (re)defines the app. A running app is left alone unless `force` (then it is
  // stopped and started with the new spec). Without: starts the given instances (default all).
  // dependencies(signal): resolves once the apps this one depends on are ready (depends_on, see
  // Supervisor.start); awaited in this operation, so a stop or delete meanwhile cancels it.
  start ({ spec = null, force = false, instances = null, onProgress = null, dependencies = null } = {}) {
    return this.run('start', async (signal) => {
      let action = 'started'
      if (spec) {
        const running = this.running
        if (running && !force) return { name: this.name, action: 'already running', ids: this.ids(), failures: [] }
        if (running) {
          action = 'restarted'
          await Promise.all(this.instances.map((i) => i.stop('restart')))
          signal.throwIfAborted()
        }
        const { removed } = this.applySpec(spec)
        await Promise.all(removed.map((i) => i.stop()))
        signal.throwIfAborted()
      }
      if (dependencies) {
        await dependencies(signal)
        signal.throwIfAborted()
      }
      const targets = (instances ?? this.instances).filter((i) => this.instances.includes(i))
      const alreadyOnline = targets.filter((i) => i.status === STATUS.ONLINE).map((i) => i.id)
      return { name: this.name, action, alreadyOnline, ...(await this.launchAll(targets, signal, onProgress)) }
    })
  }

  // Starts instances at once and collects the ones that did not reach online. A process that
  // exits with code 0 before it was ready and is not restarted (autorestart off, or 0 in
  // stop_exit_codes) has finished its job: `finished`, not a failure.
  async launchAll (instances, signal, onProgress = null, start = (i) => i.start(signal)) {
    const finished = []
    const outcomes = await Promise.allSettled(instances.map(async (inst) => {
      try {
        await start(inst)
        onProgress?.({ type: 'online', app: this.name, id: inst.id, instance: inst.index, pid: inst.pid })
      } catch (err) {
        if (!signal.aborted && inst.status === STATUS.STOPPED && inst.lastExit?.code === 0 && !inst.lastExit.signal) {
          finished.push(inst.id)
          onProgress?.({ type: 'finished', app: this.name, id: inst.id, instance: inst.index, code: 0 })
          return
        }
        if (!signal.aborted) onProgress?.({ type: 'failed', app: this.name, id: inst.id, instance: inst.index, reason: err.message })
        throw err
      }
    }))
    signal.throwIfAborted()
    const failures = []
    for (const [n, o] of outcomes.entries()) {
      if (o.status !== 'rejected') continue
      const inst = instances[n]
      failures.push({ id: inst.id, instance: inst.index, message: o.reason.message, stderr: await this.hub.lastErrorLines(inst) })
    }
    return { ids: instances.map((i) => i.id), failures, finished }
  }

  // after: a promise to wait for, in the operation, before the processes are stopped (the stops
  // of the apps that depend on this one: depends_on); the operation is queued at once all the same.
  stop (instances = this.instances, kind = 'stop', { after = null } = {}) {
    this.hub.emit('command', { type: 'stop', instances }) // policies: a user stop also stops watch and cron
    return this.run(kind, async () => {
      if (after) await after
      await Promise.all(instances.map((i) => i.stop(kind)))
      return { ids: instances.map((i) => i.id) }
    })
  }

  // With a spec (a restart from an ecosystem file, or with changed options) the app takes it
  // first; instances it adds are started, the ones it removes stopped.
  restart (instances = this.instances, { reason = 'manual', onProgress = null, spec = null } = {}) {
    return this.run('restart', async (signal) => {
      let added = []
      if (spec) {
        const change = this.applySpec(spec)
        added = change.added
        await Promise.all(change.removed.map((i) => i.stop()))
        signal.throwIfAborted()
      }
      const targets = instances.filter((i) => this.instances.includes(i))
      const restarted = await this.launchAll(targets, signal, onProgress, (i) => i.restart(reason, signal))
      if (!added.length) return restarted
      const started = await this.launchAll(added, signal, onProgress)
      return { ids: [...restarted.ids, ...started.ids], failures: [...restarted.failures, ...started.failures], finished: [...restarted.finished, ...started.finished] }
    })
  }

  // See reload.js. Policy restarts pass a coalesce key: a burst of them costs one reload.
  // Each job that ran says how it ended ('reloaded': success, failed or cancelled; the
  // xpm_reloads_total counter of daemon/prometheus).
  // onlyIf(instance): checked when the job runs, not when it is queued; instances it refuses are
  // left alone and listed in `dropped` (a policy restart raised for a process that a reload
  // queued before it has already replaced: daemon/policies/replace.js).
  reload (instances = this.instances, { spec = null, reason = 'reload', onStep = () => {}, coalesce = null, onlyIf = null } = {}) {
    return this.run('reload', async (signal) => {
      const dropped = onlyIf ? instances.filter((i) => !onlyIf(i)).map((i) => i.id) : []
      if (onlyIf) instances = instances.filter(onlyIf)
      if (onlyIf && !instances.length) return { name: this.name, replaced: [], restarted: [], skipped: [], failed: null, dropped }
      try {
        const result = await reloadInstances(this, instances, { spec, reason, onStep, signal })
        this.hub.emit('reloaded', { app: this.name, reason, result: result.failed ? 'failed' : 'success' })
        return dropped.length ? { ...result, dropped } : result
      } catch (err) {
        this.hub.emit('reloaded', { app: this.name, reason, result: err.code === 'XPM_ERR_CANCELLED' || signal.aborted ? 'cancelled' : 'failed' })
        throw err
      }
    }, { coalesce })
  }

  // `xpm scale`: the change as typed ('4', '+2', '-1'). New instances start when the app runs.
  scale (change) {
    return this.run('scale', async (signal) => {
      const from = this.instances.length
      const to = scaleTarget(from, typeof change === 'object' ? change : parseScaleChange(change))
      const running = this.running
      const plan = planScale(this.instances.map((i) => i.index), to)
      const removed = this.instances.filter((i) => plan.remove.includes(i.index))
      this.spec = { ...this.spec, instances: to }
      this.removeInstances(removed)
      const added = this.addInstances(plan.add)
      await Promise.all(removed.map((i) => i.stop('scale')))
      signal.throwIfAborted()
      const started = running && added.length ? await this.launchAll(added, signal) : { failures: [] }
      return {
        name: this.name,
        from,
        to,
        added: added.map((i) => ({ id: i.id, instance: i.index })),
        removed: removed.map((i) => ({ id: i.id, instance: i.index })),
        started: running,
        failures: started.failures
      }
    })
  }

  // Removes the given instances (all: the app itself) once they are stopped.
  delete (instances = this.instances, { after = null } = {}) {
    const whole = this.instances.every((i) => instances.includes(i))
    if (whole) this.deleting = true
    this.hub.emit('command', { type: 'stop', instances })
    const deleting = this.run('delete', async () => {
      if (after) await after // see stop()
      await Promise.all(instances.map((i) => i.stop('delete')))
      this.removeInstances(instances.filter((i) => this.instances.includes(i)))
      if (!this.instances.length) {
        this.deleted = true
        await this.hub.forget(this)
      }
      return { ids: instances.map((i) => i.id), deleted: this.deleted }
    })
    deleting.finally(() => { if (!this.deleted) this.deleting = false }).catch(() => {})
    return deleting
  }

  ids () {
    return this.instances.map((i) => i.id)
  }
}

function notFound (name) {
  return new XpmError('XPM_ERR_APP_NOT_FOUND', `No app "${name}" (it was deleted)`, { details: { target: name } })
}

module.exports = { App, notFound }
