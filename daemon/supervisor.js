'use strict'

const { EventEmitter } = require('node:events')
const { XpmError } = require('../lib/errors')
const { App } = require('./model/app')
const { Instance } = require('./model/instance')
const { launcherFor } = require('./launchers')
const { projector, wants } = require('../lib/process-fields')

// The registry of apps and the commands on them. A command resolves its target to instances,
// groups them by app and hands each app its part: apps run their parts at the same time (each
// app's own operations one after another, see model/op-lane.js). This file never writes an
// app's or an instance's fields; it only adds and forgets apps.
//
// Events: 'status' and 'restart' (from instances), 'change' (anything a snapshot shows),
// 'command' ({ type: 'stop', instances }, for the policies), 'removed' (an instance is gone),
// 'forked' ({ instance, handle }: a new OS process, adopted in the tick it was forked).
class Supervisor extends EventEmitter {
  constructor ({ launcher = launcherFor, logSink = null, metrics = null, logger = null } = {}) {
    super()
    this.launcherFor = launcher
    this.logSink = logSink
    this.metrics = metrics
    this.logger = logger
    this.apps = new Map() // name → App
    this.nextId = 0
    this.closing = false
    this.hub = {
      launcherFor: (spec) => this.launcherFor(spec),
      newInstance: (app, index, id) => this.newInstance(app, index, id),
      emit: (event, data) => this.emit(event, data),
      forget: (app) => this.forget(app),
      lastErrorLines: (inst) => this.lastErrorLines(inst)
    }
    this.on('removed', (inst) => this.metrics?.untrack(inst.id))
  }

  // ---- lookup -------------------------------------------------------------------------------

  allInstances () {
    const out = []
    for (const app of this.apps.values()) out.push(...app.instances)
    return out.sort((a, b) => a.id - b.id)
  }

  // 'all', an app name, or a numeric process id → the instances it names.
  resolve (target) {
    target = String(target)
    if (target === 'all') return this.allInstances()
    const app = this.apps.get(target)
    if (app) return [...app.instances]
    if (/^\d+$/.test(target)) {
      const found = this.allInstances().find((i) => i.id === Number(target))
      if (found) return [found]
    }
    const known = [...this.apps.keys()]
    throw new XpmError('XPM_ERR_APP_NOT_FOUND',
      `No app or process id "${target}"` + (known.length ? ` (known apps: ${known.join(', ')})` : ' (no apps are managed)'),
      { details: { target } })
  }

  app (name) {
    const app = this.apps.get(String(name))
    if (app) return app
    const known = [...this.apps.keys()]
    throw new XpmError('XPM_ERR_APP_NOT_FOUND', `No app "${name}"` + (known.length ? ` (known apps: ${known.join(', ')})` : ' (no apps are managed)'), { details: { target: name } })
  }

  // Runs fn(app, itsInstances) for every app the target names, all apps at once. With
  // onProgress, first tells the client how long the command should take (see announce()).
  eachApp (target, fn, { onProgress = null, stop = false, start = false } = {}) {
    this.refuseWhenClosing()
    const byApp = new Map()
    for (const inst of this.resolve(target)) {
      if (!byApp.has(inst.app)) byApp.set(inst.app, [])
      byApp.get(inst.app).push(inst)
    }
    announce(onProgress, [...byApp.keys()].map((app) => app.spec), { stop, start })
    return Promise.all([...byApp].map(([app, instances]) => fn(app, instances)))
  }

  refuseWhenClosing () {
    if (this.closing) throw new XpmError('XPM_ERR_SHUTTING_DOWN', 'The xpm daemon is shutting down (xpm kill); it takes no new commands')
  }

  // ---- the model's wiring -------------------------------------------------------------------

  // slots: [{ index, id }] to register stopped instances with saved ids (a restore); default:
  // none (the first start creates them from the spec).
  addApp (spec, { listens = false, slots = [] } = {}) {
    const app = new App({ spec, listens, hub: this.hub })
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

  // id: a saved id to keep (a restore checks it is free), else the next one.
  newInstance (app, index, id = null) {
    if (id === null) id = this.nextId++
    else this.nextId = Math.max(this.nextId, id + 1)
    const instance = new Instance({
      id,
      app,
      index,
      deps: {
        launcherFor: this.launcherFor,
        wire: (inst, handle) => this.wire(inst, handle),
        unwire: (inst, handle) => { if (inst.handle === handle) this.metrics?.untrack(inst.id) }
      }
    })
    instance.on('status', (change) => {
      this.logger?.info({ event: 'status', app: change.name, id: change.id, processPid: change.pid, from: change.from, to: change.to, exit: change.exit, reason: change.reason, delay: change.delay }, `${change.name}[${instance.index}] ${change.from} → ${change.to}`)
      this.emit('status', change)
      this.emit('change')
    })
    instance.on('change', () => this.emit('change'))
    // A memory limit needs a sample every second; the agent (if any) is told its report schedule.
    instance.on('process', (handle) => {
      if (handle.pid) this.metrics?.track(instance.id, handle.pid, { limited: Boolean(instance.spec.maxMemoryRestart), send: handle.reportsBoot ? (msg) => handle.send(msg) : null })
    })
    instance.on('restart', (r) => this.logger?.info({ event: 'restart', app: r.name, id: r.id, instance: r.instance, reason: r.reason }, `${r.name}[${r.instance}] restart: ${r.reason}`))
    return instance
  }

  // Logs and metrics of a freshly forked process (same tick as the fork).
  wire (instance, handle) {
    this.logSink?.attach({
      spec: instance.spec,
      proc: { id: instance.id, name: instance.name, instance: instance.index, pid: handle.pid },
      stdout: handle.stdout,
      stderr: handle.stderr
    })
    handle.on('message', (msg) => { if (instance.handle === handle) this.metrics?.onAgentMessage(instance.id, msg) })
    this.emit('forked', { instance, handle })
    this.emit('change')
  }

  // The last lines a process that failed to start wrote on stderr, so the CLI can show why
  // (a missing module, a port in use) without a trip to `xpm logs`.
  async lastErrorLines (inst, count = 5) {
    if (!this.logSink) return []
    const stderr = inst.handle?.stderr
    if (stderr && !stderr.closed) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 300)
        stderr.once('close', () => { clearTimeout(timer); resolve() })
      })
    }
    const lines = (await this.logSink.tail({ ids: new Set([inst.id]), streams: new Set(['err']) }, 40).catch(() => [])).map((l) => l.line)
    // Prefer the thrown error's own line ("Error: Cannot find module 'x'") over Node's trailer.
    const thrown = lines.findIndex((l) => /^\s*(\w*Error|Uncaught)\b/.test(l))
    return thrown === -1 ? lines.slice(-count) : lines.slice(thrown, thrown + count)
  }

  // ---- commands -----------------------------------------------------------------------------

  // Starts apps from specs, all at once. An app that exists is not duplicated: a stopped one
  // starts again with the new spec, a running one is reported (force: restarted with it). An
  // app being deleted is waited for, then created anew.
  async start (specs, { force = false, onProgress = null } = {}) {
    this.refuseWhenClosing()
    announce(onProgress, specs, { stop: force, start: true })
    return Promise.all(specs.map(async (spec) => {
      try {
        let app = this.apps.get(spec.name)
        while (app?.deleting) {
          await app.lane.idle()
          this.refuseWhenClosing()
          app = this.apps.get(spec.name)
        }
        if (!app) {
          app = this.addApp(spec)
          app.applySpec(spec)
          return await app.start({ onProgress })
        }
        return await app.start({ spec, force, onProgress })
      } catch (err) {
        if (!(err instanceof XpmError)) throw err
        return { name: spec.name, action: err.code === 'XPM_ERR_CANCELLED' ? 'cancelled' : 'failed', ids: [], failures: [{ id: null, instance: null, code: err.code, message: err.message }] }
      }
    }))
  }

  async startTarget (target, { onProgress = null } = {}) {
    const results = await this.eachApp(target, (app, instances) => app.start({ instances, onProgress }), { onProgress, start: true })
    return merge(results, ['ids', 'failures', 'alreadyOnline'])
  }

  async stop (target, { onProgress = null } = {}) {
    return merge(await this.eachApp(target, (app, instances) => app.stop(instances), { onProgress, stop: true }), ['ids'])
  }

  async restart (target, { onProgress = null } = {}) {
    return merge(await this.eachApp(target, (app, instances) => app.restart(instances, { onProgress }), { onProgress, stop: true, start: true }), ['ids', 'failures'])
  }

  async delete (target, { onProgress = null } = {}) {
    const results = await this.eachApp(target, async (app, instances) => ({ ...(await app.delete(instances)), name: app.name }), { onProgress, stop: true })
    return { ids: results.flatMap((r) => r.ids), apps: results.filter((r) => r.deleted).map((r) => r.name) }
  }

  // One reload job per app, all apps at once. specs: new specs by name (from an ecosystem file
  // or --update-env). Throws XPM_ERR_RELOAD_FAILED when a replacement failed in some app.
  async reload (target, { specs = null, onStep = () => {}, reason = 'reload', coalesce = null } = {}) {
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
      throw new XpmError('XPM_ERR_RELOAD_FAILED',
        `Reload of ${failed.map((r) => r.name).join(', ')} stopped: ${f.label} ${f.reason}; the old worker keeps serving`,
        { details: results })
    }
    return results
  }

  async scale (name, change) {
    this.refuseWhenClosing()
    return this.app(name).scale(change)
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
    await Promise.all([...this.apps.values()].map((app) => app.stop(app.instances, 'kill').catch(() => {})))
  }

  beginClose () {
    this.closing = true
  }

  // fields: only these (lib/process-fields.js), for replies that carry only what is shown.
  list ({ fields = null } = {}) {
    const rows = this.allInstances().map((i) => i.toJSON(this.metrics))
    return fields ? rows.map(projector(fields)) : rows
  }

  show (target, { fields = null } = {}) {
    const instances = this.resolve(target)
    const history = wants(fields, 'history')
    const rows = instances.map((inst) => ({
      ...inst.toJSON(this.metrics),
      spec: inst.spec,
      lastRestartDelay: inst.lastRestartDelay,
      logs: this.logSink ? this.logSink.paths(inst.spec, inst.index) : null,
      history: this.metrics && history ? this.metrics.history(inst.id) : []
    }))
    return fields ? rows.map(projector(fields)) : rows
  }
}

// The first progress event of a long command: how long it should take. Apps run in parallel,
// so it is the longest of their own waits (kill_timeout when stopping, listen_timeout when
// starting), never their sum. The CLI sets its deadline from it.
function announce (onProgress, specs, { stop, start }) {
  if (!onProgress) return
  const longest = (key, fallback) => Math.max(0, ...specs.map((s) => s[key] ?? fallback))
  const expectMs = (stop ? longest('killTimeout', 5000) + 5000 : 0) + (start ? longest('listenTimeout', 8000) : 0)
  onProgress({ type: 'begin', expectMs })
}

// Per-app results of one command → one reply: arrays concatenated in id order.
function merge (results, keys) {
  const out = {}
  for (const key of keys) out[key] = results.flatMap((r) => r[key] ?? [])
  return out
}

module.exports = { Supervisor }
