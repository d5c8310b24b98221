'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS, assertTransition } = require('./process-state')
const { stopProcess } = require('./stop-process')
const { abortable } = require('../../lib/shared/abortable')
const { processEnv } = require('./process-env')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')
const { setIntent, intentSignalOf } = require('./instance-intent')
const { exitEvent } = require('./instance-exit')
const { readinessOf } = require('./instance-readiness')
const { watchListening } = require('./port-claims')
const { replaceProcess } = require('./instance-replace')
const { instanceJSON } = require('./instance-json')

// One managed process slot: a stable id and instance index that outlive the OS processes that
// fill it. The Instance owns its processes and its status: nothing else writes either.
//
// It may own more than one OS process at a time: `handle` (the one the slot is about), a `spare`
// being readied by a reload, and `retiring` ones draining after a reload swapped them out. Each
// is adopted in the tick it is forked (exit watched, logs and metrics wired), so no interleaving
// of commands can leave a child the daemon does not know about; stop() stops all of them.
//
// Its events go to the model's event bus (context.events, the Supervisor), with the instance as
// a second argument. Emits 'status' on every status change, 'restart' on every counted restart, 'process' when a
// process takes the slot, and 'change' when something a snapshot shows changed without a status
// change (a spare appeared or went away, readiness changed). For the journal and the hooks,
// which only listen: 'exit' for every OS process of the slot that exits (with what xpm did to it
// and what follows), 'replace-failed' when a reload's replacement is rolled back, 'readiness'
// when the readiness probe's verdict on an online process changes.
class Instance {
  // context: what the app was given (model/app.js): { events, launcherFor(spec), prober }
  constructor ({ id, app, index, context }) {
    this.id = id
    this.app = app
    this.index = index
    this.context = context
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
    this.readiness = null // { ready, reason, since } of the current process, with a readiness probe
    // The intent (docs/architecture.md, "Intent"): whether the user wants this slot up, and
    // whether the app is removing it (scale down, delete of one process). Written by the App's
    // commands only (setIntent), never derived from a status. Work that brings the slot up runs
    // under intentSignal, aborted the moment the slot stops being wanted.
    this.wanted = false
    this.endedItself = false // the slot's process ended and its restart policy keeps it down (a one-shot job)
    this.finished = false // … with exit 0 (saved: a restore does not run the job again)
    this.removing = false
    this.intentController = new AbortController()
  }

  get intentSignal () { return intentSignalOf(this) }

  setIntent (change) { setIntent(this, change) } // model/instance-intent.js

  // The work of an operation on this slot: aborted by the operation's own signal (a whole-app
  // stop) or by the slot's intent (a stop of this slot alone).
  workSignal (signal) {
    return signal ? AbortSignal.any([signal, this.intentSignal]) : this.intentSignal
  }

  emit (event, data) {
    this.context.events.emit(event, data, this)
  }

  get name () { return this.app.name }
  get spec () { return this.app.spec }
  get pid () { return this.handle && !this.handle.exited ? this.handle.pid : 0 }
  get label () { return `${this.name}[${this.index}]` }

  // A restore of a job that had finished under an earlier daemon (its dependents judge it by this).
  restoreFinished () {
    this.finished = true
    this.endedItself = true
    this.lastExit = { code: 0, signal: null, at: null, uptime: 0, reason: 'finished before the daemon restarted' }
  }

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
    return processEnv(this)
  }

  // ---- processes --------------------------------------------------------------------------

  // Forks and adopts a process, in this tick.
  fork () {
    const handle = this.context.launcherFor(this.spec).launch(this.spec, this.env(), { index: this.index })
    handle.forkedAt = performance.now()
    this.emit('forked', { instance: this, handle }) // logs, metrics, the saved state: in this tick
    watchListening(this, handle) // the app listens, or another app has the port (port-claims.js)
    handle.once('exit', (exit) => this.onExit(handle, exit))
    return handle
  }

  readinessOf (handle, options) {
    return readinessOf(this, handle, options)
  }

  // What a probe needs to know about one of this slot's processes (daemon/health/probes.js).
  probeTarget (handle) {
    return { handle, spec: this.spec, id: this.id, index: this.index, name: this.name }
  }

  // The readiness probe's verdict on the current process once it is online (daemon/health):
  // not ready after failure_threshold failures in a row, ready again after success_threshold
  // passes. The status stays online; `xpm list` shows it as not ready.
  markReadiness (handle, ready, reason = null) {
    if (handle !== this.handle || handle.exited) return
    if ((this.readiness?.ready ?? true) === ready) return
    this.readiness = { ready, reason, since: Date.now() }
    this.emit('readiness', { id: this.id, name: this.name, instance: this.index, pid: handle.pid, ready, reason })
    this.emit('change')
  }

  // Stops one of this slot's processes, saying why (the journal reads it from its exit event).
  stopHandle (handle, cause, spec = this.spec) {
    handle.stopCause ??= cause
    return stopProcess(handle, spec)
  }

  // Launches a process into the slot; resolves when it is ready (the status turns online then),
  // rejects when it exits first or fails its readiness probe in time (it is then stopped, and
  // its exit goes through the restart policy like a crash). One still running at listen_timeout
  // without a verdict is online with a warning (wait-ready.js, aliveIsReady).
  launch () {
    clearTimeout(this.restartTimer)
    this.restartTimer = null
    this.givingUp = null
    const handle = this.fork()
    this.handle = handle
    this.startedAt = performance.now()
    this.readiness = null
    this.emit('process', handle)
    this.setStatus(STATUS.LAUNCHING, { pid: handle.pid })
    const ready = this.readinessOf(handle, { aliveIsReady: true }).then((how) => {
      if (this.handle === handle && this.status === STATUS.LAUNCHING) {
        this.onlineSince = Date.now()
        this.setStatus(STATUS.ONLINE, how?.warning ? { warning: how.warning, warningKind: how.warningKind } : {})
      }
      return how
    }, (err) => {
      if (err.details?.reason === 'timeout' && this.handle === handle && !handle.exited) {
        handle.notReady = err.message
        this.stopHandle(handle, 'not ready in time', { ...this.spec, killTimeout: Math.min(this.spec.killTimeout ?? SPEC_DEFAULTS.killTimeout, 2000) })
      }
      throw err
    })
    ready.catch(() => {})
    this.ready = ready
    return ready
  }

  onExit (handle, exit) {
    this.emit('exit', exitEvent(this, handle, exit))
  }

  // ---- what the app's operations call -------------------------------------------------------

  // Resolves when the slot is online (at once when it already is).
  async start (signal = null) {
    signal = this.workSignal(signal)
    signal.throwIfAborted()
    if (this.stopping) await abortable(this.stopping, signal)
    signal.throwIfAborted()
    if (this.status === STATUS.ONLINE) return
    if (this.status === STATUS.LAUNCHING) return abortable(this.ready, signal)
    if (this.status === STATUS.WAITING || this.status === STATUS.ERRORED) this.setStatus(STATUS.STOPPED)
    this.crashTimes = []
    this.unstableRuns = 0
    // a start of many processes forks a few per turn of the event loop (model/fork-pacer.js)
    const pacer = this.context.forkPacer
    if (!pacer) return abortable(this.launch(), signal)
    await pacer.slot(signal)
    let forked = null
    try {
      signal.throwIfAborted()
      if (this.status === STATUS.ONLINE) return
      if (this.status === STATUS.LAUNCHING) return abortable(this.ready, signal)
      const ready = this.launch() // forks now, in this tick
      forked = this.handle
      return abortable(ready, signal)
    } finally {
      pacer.done(forked) // the pacer counts it as booting until it has
    }
  }

  // Stops every process of the slot, gracefully; callers during a stop share it. cause: why (the
  // user's command: 'stop', 'delete', 'kill', 'scale'; a restart's reason), for the journal.
  stop (cause = null) {
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
    this.stopping = Promise.all(processes.map((h) => this.stopHandle(h, cause, spec))).then(() => {
      this.stopping = null
      this.setStatus(STATUS.STOPPED)
    })
    return this.stopping
  }

  // As PM2, a restart of a slot the user had stopped starts it without counting a restart.
  async restart (reason = 'manual', signal = null) {
    this.workSignal(signal).throwIfAborted()
    const wasStopped = this.status === STATUS.STOPPED && !this.processes().length
    await this.stop(reason)
    this.workSignal(signal).throwIfAborted()
    if (!wasStopped) this.noteRestart(reason)
    return this.start(signal)
  }

  // Reload of one cluster slot (instance-replace.js).
  replace (options) {
    return replaceProcess(this, options)
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
    return Promise.all(this.processes().map((h) => this.stopHandle(h, reason))).then(() => true)
  }

  signal (name) {
    if (!this.pid) return false
    this.handle.signalSent = name
    return this.handle.signal(name)
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
  // extra: what a reload's replacement adds ({ replaced: true, pid, oldPid }: instance-replace.js).
  noteRestart (reason, extra = null) {
    this.restarts++
    this.lastRestartReason = reason
    this.emit('restart', { id: this.id, name: this.name, instance: this.index, reason, ...extra })
  }

  toJSON (metrics) {
    return instanceJSON(this, metrics)
  }
}

module.exports = { Instance }
