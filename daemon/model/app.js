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
  start ({ spec = null, force = false, instances = null, onProgress = null } = {}) {
    return this.run('start', async (signal) => {
      let action = 'started'
      if (spec) {
        const running = this.running
        if (running && !force) return { name: this.name, action: 'already running', ids: this.ids(), failures: [] }
        if (running) {
          action = 'restarted'
          await Promise.all(this.instances.map((i) => i.stop()))
          signal.throwIfAborted()
        }
        const { removed } = this.applySpec(spec)
        await Promise.all(removed.map((i) => i.stop()))
        signal.throwIfAborted()
      }
      const targets = (instances ?? this.instances).filter((i) => this.instances.includes(i))
      const alreadyOnline = targets.filter((i) => i.status === STATUS.ONLINE).map((i) => i.id)
      return { name: this.name, action, alreadyOnline, ...(await this.launchAll(targets, signal, onProgress)) }
    })
  }

  // Starts instances at once and collects the ones that did not reach online.
  async launchAll (instances, signal, onProgress = null, start = (i) => i.start(signal)) {
    const outcomes = await Promise.allSettled(instances.map(async (inst) => {
      try {
        await start(inst)
        onProgress?.({ type: 'online', app: this.name, id: inst.id, instance: inst.index, pid: inst.pid })
      } catch (err) {
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
    return { ids: instances.map((i) => i.id), failures }
  }

  stop (instances = this.instances, kind = 'stop') {
    this.hub.emit('command', { type: 'stop', instances }) // policies: a user stop also stops watch and cron
    return this.run(kind, async () => {
      await Promise.all(instances.map((i) => i.stop()))
      return { ids: instances.map((i) => i.id) }
    })
  }

  restart (instances = this.instances, { reason = 'manual', onProgress = null } = {}) {
    return this.run('restart', (signal) => this.launchAll(instances.filter((i) => this.instances.includes(i)), signal, onProgress, (i) => i.restart(reason, signal)))
  }

  // See reload.js. Policy restarts pass a coalesce key: a burst of them costs one reload.
  reload (instances = this.instances, { spec = null, reason = 'reload', onStep = () => {}, coalesce = null } = {}) {
    return this.run('reload', (signal) => reloadInstances(this, instances, { spec, reason, onStep, signal }), { coalesce })
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
      await Promise.all(removed.map((i) => i.stop()))
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
  delete (instances = this.instances) {
    const whole = this.instances.every((i) => instances.includes(i))
    if (whole) this.deleting = true
    this.hub.emit('command', { type: 'stop', instances })
    const deleting = this.run('delete', async () => {
      await Promise.all(instances.map((i) => i.stop()))
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
