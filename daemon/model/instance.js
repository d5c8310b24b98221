'use strict'

const { EventEmitter } = require('node:events')
const { performance } = require('node:perf_hooks')
const { STATUS, assertTransition } = require('../process-state')
const { decideRestart, policyFromSpec } = require('../restart-policy')
const { stopProcess } = require('../stop-process')
const { waitUntilReady } = require('../wait-ready')
const { holdUnderWatch } = require('../policies/watch-crash')
const { abortable } = require('./op-lane')

const DRAIN = { cmd: 'NODE_XPM_DRAIN' } // see lib/worker/drain.js

// One managed process slot: a stable id and instance index that outlive the OS processes that
// fill it. The Instance owns its processes and its status: nothing else writes either.
//
// It may own more than one OS process at a time: `handle` (the one the slot is about), a `spare`
// being readied by a reload, and `retiring` ones draining after a reload swapped them out. Each
// is adopted in the tick it is forked (exit watched, logs and metrics wired), so no interleaving
// of commands can leave a child the daemon does not know about; stop() stops all of them.
//
// Emits 'status' on every status change, 'restart' on every counted restart, 'process' when a
// process takes the slot, and 'change' when something a snapshot shows changed without a status
// change (a spare appeared or went away).
class Instance extends EventEmitter {
  constructor ({ id, app, index, deps }) {
    super()
    this.id = id
    this.app = app
    this.index = index
    this.deps = deps // { launcherFor(spec), wire(instance, handle), unwire(instance, handle) }
    this.status = STATUS.STOPPED
    this.handle = null
    this.spare = null
    this.retiring = new Set()
    this.ready = null // readiness of the current launch
    this.stopping = null // the stop in progress, shared by every caller
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
    this.givingUp = null // the reason, while giveUp() stops the process
  }

  get name () { return this.app.name }
  get spec () { return this.app.spec }
  get pid () { return this.handle && !this.handle.exited ? this.handle.pid : 0 }
  get label () { return `${this.name}[${this.index}]` }

  // Every live OS process of this slot.
  processes () {
    return [this.handle, this.spare, ...this.retiring].filter((h) => h && !h.exited)
  }

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

  // ---- processes --------------------------------------------------------------------------

  // Forks and adopts a process, in this tick.
  fork () {
    const handle = this.deps.launcherFor(this.spec).launch(this.spec, this.env())
    this.deps.wire(this, handle)
    handle.on('listening', () => this.app.markListening())
    handle.once('exit', (exit) => this.onExit(handle, exit))
    return handle
  }

  readinessOf (handle, { signal = null, label = `${this.label} (pid ${handle.pid})` } = {}) {
    const spec = this.spec
    return waitUntilReady(handle, {
      waitReady: spec.waitReady,
      expectListen: handle.announcesListening && this.app.listens,
      listenTimeout: spec.listenTimeout,
      settleMs: Math.min(spec.minUptime ?? 1000, 1000),
      label,
      signal
    })
  }

  // Launches a process into the slot; resolves when it is ready (the status turns online then),
  // rejects when it exits first or is not ready in time (it is then stopped, and its exit goes
  // through the restart policy like a crash).
  launch () {
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    this.givingUp = null
    const handle = this.fork()
    this.handle = handle
    this.startedAt = performance.now()
    this.emit('process', handle)
    this.setStatus(STATUS.LAUNCHING, { pid: handle.pid })
    const ready = this.readinessOf(handle).then((how) => {
      if (this.handle === handle && this.status === STATUS.LAUNCHING) {
        this.onlineSince = Date.now()
        this.setStatus(STATUS.ONLINE)
      }
      return how
    }, (err) => {
      if (err.details?.reason === 'timeout' && this.handle === handle && !handle.exited) {
        handle.notReady = err.message
        stopProcess(handle, { ...this.spec, killTimeout: Math.min(this.spec.killTimeout ?? 5000, 2000) })
      }
      throw err
    })
    ready.catch(() => {})
    this.ready = ready
    return ready
  }

  onExit (handle, exit) {
    this.deps.unwire(this, handle)
    if (handle === this.spare) this.spare = null
    if (this.retiring.delete(handle) || this.handle !== handle) {
      this.emit('change')
      return
    }
    const uptime = handle.notReady ? 0 : performance.now() - this.startedAt
    this.lastExit = { code: exit.code, signal: exit.signal, at: Date.now(), uptime: Math.round(performance.now() - this.startedAt) }
    this.onlineSince = 0
    if (this.status === STATUS.STOPPING || this.status === STATUS.STOPPED) return
    if (this.givingUp) {
      this.lastExit.reason = this.givingUp
      this.givingUp = null
      this.setStatus(STATUS.ERRORED, { exit, reason: this.lastExit.reason })
      return
    }
    const decision = holdUnderWatch(this.spec, decideRestart({
      policy: policyFromSpec(this.spec),
      exit: { ...exit, uptime },
      crashTimes: this.crashTimes,
      unstableRuns: this.unstableRuns,
      now: performance.now()
    }))
    const crash = handle.notReady ? 'not ready in time' : exit.signal ? `crash (signal ${exit.signal})` : `crash (exit code ${exit.code})`
    this.lastExit.reason = decision.action === 'stopped' && !handle.notReady ? decision.reason : crash
    if (decision.action === 'stopped') {
      this.setStatus(STATUS.STOPPED, { exit, reason: decision.reason })
      return
    }
    this.crashTimes = decision.crashTimes
    this.unstableRuns = decision.unstableRuns
    if (decision.action === 'errored') {
      this.lastExit.reason = `${crash}; ${decision.reason}`
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

  // ---- what the app's operations call -------------------------------------------------------

  // Resolves when the slot is online (at once when it already is).
  async start (signal = null) {
    if (this.stopping) await this.stopping
    signal?.throwIfAborted()
    if (this.status === STATUS.ONLINE) return
    if (this.status === STATUS.LAUNCHING) return abortable(this.ready, signal)
    if (this.status === STATUS.WAITING || this.status === STATUS.ERRORED) this.setStatus(STATUS.STOPPED)
    this.crashTimes = []
    this.unstableRuns = 0
    return abortable(this.launch(), signal)
  }

  // Stops every process of the slot, gracefully; callers during a stop share it.
  stop () {
    if (this.stopping) return this.stopping
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    const processes = this.processes()
    if (!processes.length) {
      if (this.status !== STATUS.STOPPED) this.setStatus(STATUS.STOPPED)
      return Promise.resolve()
    }
    this.setStatus(STATUS.STOPPING)
    const spec = this.spec
    this.stopping = Promise.all(processes.map((h) => stopProcess(h, spec))).then(() => {
      this.stopping = null
      this.setStatus(STATUS.STOPPED)
    })
    return this.stopping
  }

  async restart (reason = 'manual', signal = null) {
    await this.stop()
    signal?.throwIfAborted()
    this.noteRestart(reason)
    return this.start(signal)
  }

  // Reload of one cluster slot: a spare is forked beside the current process, and only once it
  // is ready does it take the slot; the old one then drains and stops. A spare that fails (or a
  // reload cancelled meanwhile) is stopped and the current process keeps the slot.
  async replace ({ reason = 'reload', signal = null, step = () => {} } = {}) {
    const old = this.handle
    const spare = this.fork()
    this.spare = spare
    this.emit('change')
    step({ type: 'fork', id: this.id, instance: this.index, oldPid: old.pid, newPid: spare.pid })
    try {
      const how = await this.readinessOf(spare, { signal, label: `replacement ${this.label} (pid ${spare.pid})` })
      signal?.throwIfAborted()
      if (how.by === 'listening') this.app.markListening()
    } catch (err) {
      if (this.spare === spare) this.spare = null
      await stopProcess(spare, { ...this.spec, killTimeout: Math.min(this.spec.killTimeout ?? 5000, 2000) })
      throw err
    }
    step({ type: 'ready', id: this.id, instance: this.index, newPid: spare.pid })

    const previous = this.handle // the old worker, or whatever crash-restart put in the slot meanwhile
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    this.spare = null
    this.handle = spare
    this.givingUp = null
    this.startedAt = performance.now()
    this.onlineSince = Date.now()
    this.emit('process', spare)
    if (previous && !previous.exited) this.retiring.add(previous)
    if (this.status !== STATUS.ONLINE) {
      if (this.status !== STATUS.LAUNCHING) this.setStatus(STATUS.LAUNCHING)
      this.setStatus(STATUS.ONLINE)
    }
    this.emit('status', { id: this.id, name: this.name, from: STATUS.ONLINE, to: STATUS.ONLINE, pid: spare.pid, reason: 'reloaded' })
    this.noteRestart(reason)
    if (previous && !previous.exited) {
      previous.send(DRAIN)
      await stopProcess(previous, this.spec)
    }
    step({ type: 'stopped', id: this.id, instance: this.index, oldPid: previous?.pid ?? old.pid })
    return { oldPid: old.pid, newPid: spare.pid }
  }

  // A policy (memory limit, watch) that keeps restarting this slot gives up: its processes are
  // stopped gracefully and it turns errored with `reason` (shown as the last exit's reason),
  // until the user starts, restarts, stops or deletes it. Nothing to do if the user stopped it.
  giveUp (reason) {
    if (this.status === STATUS.STOPPED || this.status === STATUS.STOPPING) return Promise.resolve(false)
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    if (!this.pid) {
      this.lastExit = { ...this.lastExit, reason }
      if (this.status === STATUS.ERRORED) this.emit('change')
      else this.setStatus(STATUS.ERRORED, { reason })
      return Promise.resolve(true)
    }
    this.givingUp = reason
    return Promise.all(this.processes().map((h) => stopProcess(h, this.spec))).then(() => true)
  }

  signal (name) {
    return this.pid ? this.handle.signal(name) : false
  }

  resetCounters () {
    this.restarts = 0
    this.crashTimes = []
    this.unstableRuns = 0
    this.lastRestartDelay = 0
    this.lastRestartReason = null
    this.emit('change')
  }

  // Every restart is counted here, with its reason, and announced once (the daemon log line).
  noteRestart (reason) {
    this.restarts++
    this.lastRestartReason = reason
    this.emit('restart', { id: this.id, name: this.name, instance: this.index, reason })
  }

  toJSON (metrics) {
    const latest = metrics?.latest(this.id) ?? null
    const extra = this.processes().filter((h) => h !== this.handle).map((h) => h.pid)
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
      ...(extra.length ? { extraPids: extra } : {}),
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
