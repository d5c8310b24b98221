'use strict'

const { EventEmitter } = require('node:events')
const { performance } = require('node:perf_hooks')
const { STATUS, assertTransition } = require('./process-state')
const { decideRestart, policyFromSpec } = require('./restart-policy')
const { stopProcess } = require('./stop-process')
const { waitUntilReady } = require('./wait-ready')
const { holdUnderWatch } = require('./policies/watch-crash')

// One managed process slot: a stable id and instance index that outlive the OS processes that
// fill it. Owns the crash → backoff → relaunch loop; emits 'status' on every change.
class Instance extends EventEmitter {
  constructor ({ id, app, index, deps }) {
    super()
    this.id = id
    this.app = app // { name, spec, listens }
    this.index = index
    this.deps = deps // { launch(spec, env) → handle, attachProcess(instance, handle), detachProcess(instance, handle), logger }
    this.status = STATUS.STOPPED
    this.handle = null
    this.restarts = 0
    this.createdAt = Date.now()
    this.startedAt = 0 // monotonic
    this.onlineSince = 0 // wall clock, for display
    this.lastExit = null
    this.crashTimes = []
    this.unstableRuns = 0
    this.restartTimer = null
    this.lastRestartDelay = 0
    this.lastRestartReason = null
  }

  get name () { return this.app.name }
  get spec () { return this.app.spec }
  get pid () { return this.handle && !this.handle.exited ? this.handle.pid : 0 }

  setStatus (to, extra = {}) {
    const from = this.status
    if (from === to) return
    this.status = assertTransition(from, to)
    this.emit('status', { id: this.id, name: this.name, from, to, pid: this.pid, ...extra })
  }

  env () {
    return {
      ...this.spec.env,
      NODE_APP_INSTANCE: String(this.index),
      XPM_ID: String(this.id),
      XPM_APP_NAME: this.name,
      ...(this.spec.metrics === false ? { XPM_METRICS: '0' } : {})
    }
  }

  // Forks a new OS process for this slot (does not wait for readiness).
  launch () {
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    const handle = this.deps.launch(this.spec, this.env())
    this.setStatus(STATUS.LAUNCHING, { pid: handle.pid })
    this.adopt(handle)
    return handle
  }

  // Makes `handle` the process of this slot: watches it for exit and wires logs and metrics.
  adopt (handle) {
    this.handle = handle
    this.startedAt = performance.now()
    this.deps.attachProcess(this, handle)
    handle.once('online', () => {
      if (this.handle !== handle || this.status !== STATUS.LAUNCHING) return
      this.onlineSince = Date.now()
      this.setStatus(STATUS.ONLINE)
    })
    if (handle.isOnline && this.status === STATUS.LAUNCHING) {
      this.onlineSince = Date.now()
      this.setStatus(STATUS.ONLINE)
    }
    this.watch(handle)
  }

  watch (handle) {
    handle.on('listening', () => { this.app.listens = true })
    handle.once('exit', (exit) => this.onExit(handle, exit))
  }

  // Reload: the slot's process becomes `handle`, already online and ready. The previous process
  // is stopped by the caller; its exit is ignored because it no longer owns the slot.
  swapHandle (handle, reason = 'reload') {
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    this.handle = handle
    this.startedAt = performance.now()
    this.onlineSince = Date.now()
    this.watch(handle)
    if (this.status !== STATUS.ONLINE) {
      if (this.status !== STATUS.LAUNCHING) this.setStatus(STATUS.LAUNCHING)
      this.setStatus(STATUS.ONLINE)
    }
    this.emit('status', { id: this.id, name: this.name, from: STATUS.ONLINE, to: STATUS.ONLINE, pid: handle.pid, reason: 'reloaded' })
    this.noteRestart(reason)
  }

  waitReady ({ expectListen = this.app.listens } = {}) {
    const spec = this.spec
    return waitUntilReady(this.handle, {
      waitReady: spec.waitReady,
      expectListen: spec.execMode === 'cluster' && expectListen,
      listenTimeout: spec.listenTimeout,
      settleMs: Math.min(spec.minUptime ?? 1000, 1000),
      label: `${this.name}[${this.index}] (pid ${this.handle.pid})`
    })
  }

  async start () {
    if (this.status === STATUS.ONLINE || this.status === STATUS.LAUNCHING) return
    if (this.status === STATUS.WAITING) this.setStatus(STATUS.STOPPED)
    if (this.status === STATUS.ERRORED) this.setStatus(STATUS.STOPPED)
    this.crashTimes = []
    this.unstableRuns = 0
    this.launch()
    return this.waitReady()
  }

  onExit (handle, exit) {
    this.deps.detachProcess(this, handle)
    if (this.handle !== handle) return // a replaced process (reload) – its successor owns the slot
    const uptime = performance.now() - this.startedAt
    this.lastExit = { code: exit.code, signal: exit.signal, at: Date.now(), uptime: Math.round(uptime) }
    this.onlineSince = 0
    if (this.status === STATUS.STOPPING || this.status === STATUS.STOPPED) {
      if (this.status === STATUS.STOPPING) this.setStatus(STATUS.STOPPED, { exit })
      return
    }
    const decision = holdUnderWatch(this.spec, decideRestart({
      policy: policyFromSpec(this.spec),
      exit: { ...exit, uptime },
      crashTimes: this.crashTimes,
      unstableRuns: this.unstableRuns,
      now: performance.now()
    }))
    const crash = exit.signal ? `crash (signal ${exit.signal})` : `crash (exit code ${exit.code})`
    this.lastExit.reason = decision.action === 'stopped' ? decision.reason : crash
    if (decision.action === 'stopped') {
      this.setStatus(STATUS.STOPPED, { exit, reason: decision.reason })
      return
    }
    this.crashTimes = decision.crashTimes
    this.unstableRuns = decision.unstableRuns
    if (decision.action === 'errored') {
      this.setStatus(STATUS.ERRORED, { exit, reason: decision.reason })
      return
    }
    this.lastRestartDelay = decision.delay
    this.setStatus(STATUS.WAITING, { exit, delay: decision.delay, reason: crash })
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null
      if (this.status !== STATUS.WAITING) return
      this.noteRestart(crash)
      this.launch()
    }, decision.delay)
  }

  async stop () {
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    if (this.status === STATUS.STOPPED) return
    if (!this.handle || this.handle.exited || this.status === STATUS.WAITING || this.status === STATUS.ERRORED) {
      this.setStatus(STATUS.STOPPED)
      return
    }
    if (this.status !== STATUS.STOPPING) this.setStatus(STATUS.STOPPING)
    const exit = await stopProcess(this.handle, this.spec)
    if (this.status === STATUS.STOPPING) this.setStatus(STATUS.STOPPED, { exit })
  }

  async restart (reason = 'manual') {
    await this.stop()
    this.noteRestart(reason)
    return this.start()
  }

  // Every restart is counted here, with its reason, and announced once (the daemon log line).
  noteRestart (reason) {
    this.restarts++
    this.lastRestartReason = reason
    this.emit('restart', { id: this.id, name: this.name, instance: this.index, reason })
  }

  toJSON (metrics) {
    const latest = metrics?.latest(this.id) ?? null
    return {
      id: this.id,
      name: this.name,
      instance: this.index,
      pid: this.pid,
      status: this.status,
      restarts: this.restarts,
      uptime: this.status === STATUS.ONLINE && this.onlineSince ? Date.now() - this.onlineSince : 0,
      createdAt: this.createdAt,
      mode: this.spec.execMode,
      cpu: latest?.cpu ?? 0,
      memory: latest?.memory ?? 0,
      lastExit: this.lastExit,
      lastRestartReason: this.lastRestartReason,
      metrics: latest && latest.heapUsed != null
        ? pick(latest, ['heapUsed', 'heapTotal', 'rss', 'elP50', 'elP95', 'elP99', 'elMax', 'elu', 'at'])
        : null
    }
  }
}

function pick (obj, keys) {
  const out = {}
  for (const k of keys) out[k] = obj[k]
  return out
}

module.exports = { Instance }
