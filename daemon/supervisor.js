'use strict'

const { EventEmitter } = require('node:events')
const { XpmError } = require('../lib/errors')
const { Instance } = require('./instance')
const { STATUS } = require('./process-state')

// The registry of apps and their instances, and the commands that act on them. Launching,
// stopping, restart policy and reload live in their own modules; this file only decides which
// instances a command touches and in what order.
class Supervisor extends EventEmitter {
  constructor ({ launch, logSink = null, metrics = null, logger }) {
    super()
    this.launchProcess = launch
    this.logSink = logSink
    this.metrics = metrics
    this.logger = logger
    this.apps = new Map() // name → { name, spec, listens, instances: Instance[] }
    this.nextId = 0
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

  appsOf (instances) {
    return [...new Set(instances.map((i) => i.app))]
  }

  // ---- wiring for each OS process -----------------------------------------------------------

  newInstance (app, index) {
    const instance = new Instance({
      id: this.nextId++,
      app,
      index,
      deps: {
        launch: this.launchProcess,
        attachProcess: (inst, handle) => this.attachProcess(inst, handle),
        detachProcess: (inst, handle) => this.detachProcess(inst, handle)
      }
    })
    instance.on('status', (change) => {
      this.logger?.info({ event: 'status', app: change.name, id: change.id, processPid: change.pid, from: change.from, to: change.to, exit: change.exit, reason: change.reason, delay: change.delay }, `${change.name}[${instance.index}] ${change.from} → ${change.to}`)
      this.emit('status', change)
      this.emit('change')
    })
    instance.on('restart', (r) => this.logger?.info({ event: 'restart', app: r.name, id: r.id, instance: r.instance, reason: r.reason }, `${r.name}[${r.instance}] restart: ${r.reason}`))
    return instance
  }

  attachProcess (instance, handle) {
    this.logSink?.attach({
      spec: instance.spec,
      proc: { id: instance.id, name: instance.name, instance: instance.index, pid: handle.pid },
      stdout: handle.stdout,
      stderr: handle.stderr
    })
    handle.on('message', (msg) => this.metrics?.onAgentMessage(instance.id, msg))
    const track = () => this.metrics?.track(instance.id, handle.pid)
    if (handle.pid) track()
    else handle.once('online', track)
  }

  detachProcess (instance, handle) {
    if (instance.handle === handle) this.metrics?.untrack(instance.id)
  }

  // ---- commands -----------------------------------------------------------------------------

  // Starts new apps. An app that already exists is not duplicated: a stopped one starts again
  // with the new spec, a running one is reported (force: restarted with the new spec).
  async start (specs, { force = false } = {}) {
    const results = []
    for (const spec of specs) {
      const existing = this.apps.get(spec.name)
      if (existing) {
        const running = existing.instances.some((i) => i.status !== STATUS.STOPPED && i.status !== STATUS.ERRORED)
        if (running && !force) {
          results.push({ name: spec.name, action: 'already running' })
          continue
        }
        await Promise.all(existing.instances.map((i) => i.stop()))
        this.applySpec(existing, spec)
        results.push({ name: spec.name, action: running ? 'restarted' : 'started', ...(await this.startInstances(existing.instances)) })
        continue
      }
      const app = { name: spec.name, spec, listens: false, instances: [] }
      for (let index = 0; index < spec.instances; index++) app.instances.push(this.newInstance(app, index))
      this.apps.set(spec.name, app)
      this.emit('change')
      results.push({ name: spec.name, action: 'started', ...(await this.startInstances(app.instances)) })
    }
    return results
  }

  // Keeps instance ids when the count is unchanged; adds or removes trailing instances otherwise.
  applySpec (app, spec) {
    app.spec = spec
    while (app.instances.length < spec.instances) app.instances.push(this.newInstance(app, app.instances.length))
    const removed = app.instances.splice(spec.instances)
    for (const inst of removed) this.metrics?.untrack(inst.id)
    this.emit('change')
  }

  async startInstances (instances) {
    const outcomes = await Promise.allSettled(instances.map((i) => i.start()))
    const failures = []
    for (const [n, o] of outcomes.entries()) {
      if (o.status !== 'rejected') continue
      const inst = instances[n]
      failures.push({ id: inst.id, instance: inst.index, message: o.reason.message, stderr: await this.lastErrorLines(inst) })
    }
    return { ids: instances.map((i) => i.id), failures }
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

  async startTarget (target) {
    const instances = this.resolve(target)
    const before = instances.filter((i) => i.status === STATUS.ONLINE).map((i) => i.id)
    const result = await this.startInstances(instances)
    return { ...result, alreadyOnline: before }
  }

  async stop (target) {
    const instances = this.resolve(target)
    this.emit('command', { type: 'stop', instances }) // policies: a user stop also stops watch and cron
    await Promise.all(instances.map((i) => i.stop()))
    return { ids: instances.map((i) => i.id) }
  }

  async restart (target) {
    const instances = this.resolve(target)
    const outcomes = await Promise.allSettled(instances.map((i) => i.restart('manual')))
    const failures = []
    outcomes.forEach((o, n) => {
      if (o.status === 'rejected') failures.push({ id: instances[n].id, instance: instances[n].index, message: o.reason.message })
    })
    return { ids: instances.map((i) => i.id), failures }
  }

  async delete (target) {
    const instances = this.resolve(target)
    await Promise.all(instances.map((i) => i.stop()))
    for (const inst of instances) {
      inst.app.instances = inst.app.instances.filter((i) => i !== inst)
      this.metrics?.untrack(inst.id)
    }
    const emptied = this.appsOf(instances).filter((app) => app.instances.length === 0)
    for (const app of emptied) {
      this.apps.delete(app.name)
      await this.logSink?.closeApp(app.name)
    }
    this.emit('change')
    return { ids: instances.map((i) => i.id), apps: emptied.map((a) => a.name) }
  }

  async stopAll () {
    await Promise.all(this.allInstances().map((i) => i.stop()))
  }

  // Adds or removes instances of one app (change: 'n', '+n' or '-n'); see policies/scale.js.
  scale (name, change) {
    return require('./policies/scale').scaleApp(this, name, change)
  }

  list () {
    return this.allInstances().map((i) => i.toJSON(this.metrics))
  }

  show (target) {
    const instances = this.resolve(target)
    return instances.map((inst) => ({
      ...inst.toJSON(this.metrics),
      spec: inst.spec,
      lastRestartDelay: inst.lastRestartDelay,
      logs: this.logSink ? this.logSink.paths(inst.spec, inst.index) : null,
      history: this.metrics ? this.metrics.history(inst.id) : []
    }))
  }
}

module.exports = { Supervisor }
