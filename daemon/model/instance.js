'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS, assertTransition } = require('./process-state')
const { stopProcess } = require('./stop-process')
const { abortable } = require('../../lib/shared/abortable')
const { processEnv } = require('./process-env')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')
const { decideIntent, intentSignalOf } = require('./instance-intent')
const { decideExit, exitEvent } = require('./instance-exit')
const { readinessWait, probeTarget, decideLaunchReady, decideReadiness } = require('./instance-readiness')
const { decideSpareForked, decideSpareFailed, decideSpareReady } = require('./instance-replace')
const { waitUntilReady } = require('./wait-ready')
const { watchListening } = require('./port-claims')
const { replaceProcess } = require('./slot-replace')
const { instanceJSON } = require('./instance-json')
const { initialState, STATE_KEYS } = require('./instance-state')

const clock = () => ({ now: performance.now(), wall: Date.now() })

// One managed process slot: a stable id and instance index that outlive the OS processes that
// fill it. The Instance owns its processes and its status: its state is private (#s), read
// through getters (or view(), a frozen snapshot) and written only by #apply, which carries out
// the effects the pure decisions return (instance-exit.js, instance-intent.js,
// instance-readiness.js, instance-replace.js), in order:
//   ['set', fields]  ['status', to, extra]  ['emit', event, data]  ['intent', change]
//   ['cancelRestart']  ['restartAfter', delay, reason]  ['renewIntent']  ['abortIntent', reason]
//   ['retire', handle]  ['unretire', handle]  ['noteRestart', reason, extra]
//
// It may own more than one OS process at a time: `handle` (the one the slot is about), a `spare`
// being readied by a reload, and `retiring` ones draining after a reload swapped them out. Each
// is adopted in the tick it is forked (exit watched, logs and metrics wired), so no interleaving
// of commands can leave a child the daemon does not know about; stop() stops all of them.
// Its events (daemon/events.js) go to the model's event bus with the instance as second argument.
class Instance {
  #s
  #intentController = new AbortController()
  #retiring = new Set()
  #restartTimer = null

  // context: what the app was given (model/app.js): { events, ids, launcherFor(spec), prober, … }
  constructor ({ id = null, app, index, context }) {
    this.#s = initialState({ app, index, context })
    this.#s.id = context.ids ? context.ids.take(this, id) : id
    Object.preventExtensions(this) // nothing outside hangs its own fields on a slot
  }

  static {
    for (const key of STATE_KEYS) Object.defineProperty(this.prototype, key, { get () { return this.#s[key] }, enumerable: false })
  }

  view () { // a frozen snapshot of the slot's state, for whoever reads more than a field
    return Object.freeze({ ...this.#s, name: this.name, spec: this.spec, label: this.label, retiring: Object.freeze([...this.#retiring]), restartPending: this.restartPending })
  }

  #state () { // what a decision is given: the state, and the slot for payloads that carry it
    return { ...this.#s, name: this.name, spec: this.spec, label: this.label, retiring: this.#retiring, instance: this }
  }

  #apply (effects) {
    for (const [kind, a, b] of effects) {
      if (kind === 'set') this.#set(a)
      else if (kind === 'status') this.setStatus(a, b)
      else if (kind === 'emit') this.emit(a, b)
      else if (kind === 'intent') this.setIntent(a)
      else if (kind === 'cancelRestart') this.#setRestartTimer(null)
      else if (kind === 'restartAfter') this.#setRestartTimer(setTimeout(() => this.#restartDue(b), a))
      else if (kind === 'renewIntent') this.#intentController = new AbortController()
      else if (kind === 'abortIntent') this.#intentController.abort(a)
      else if (kind === 'retire') this.#retiring.add(a)
      else if (kind === 'unretire') this.#retiring.delete(a)
      else if (kind === 'noteRestart') this.noteRestart(a, b)
      else throw new TypeError(`unknown effect ${kind}`)
    }
  }

  #set (fields) {
    for (const key of Object.keys(fields)) if (!Object.hasOwn(this.#s, key)) throw new TypeError(`an Instance has no field ${key}`)
    Object.assign(this.#s, fields)
  }

  #setRestartTimer (timer) {
    clearTimeout(this.#restartTimer)
    this.#restartTimer = timer
  }

  #restartDue (reason) {
    this.#restartTimer = null
    if (this.#s.status !== STATUS.WAITING || !this.#s.wanted) return
    this.noteRestart(reason)
    this.launch()
  }

  get restartPending () { return this.#restartTimer !== null }
  get intentSignal () { return intentSignalOf(this, this.#intentController) }

  setIntent (change) { this.#apply(decideIntent(this.#state(), change)) } // model/instance-intent.js

  // The work of an operation on this slot: aborted by the operation's own signal (a whole-app
  // stop) or by the slot's intent (a stop of this slot alone).
  workSignal (signal) {
    return signal ? AbortSignal.any([signal, this.intentSignal]) : this.intentSignal
  }

  emit (event, data) {
    this.#s.context.events.emit(event, data, this)
  }

  get name () { return this.#s.app.name }
  get spec () { return this.#s.app.spec }
  get pid () { return this.#s.handle && !this.#s.handle.exited ? this.#s.handle.pid : 0 }
  get label () { return `${this.name}[${this.#s.index}]` }

  // A restore of a job that had finished under an earlier daemon (its dependents judge it by this).
  restoreFinished () {
    this.#apply([['set', { finished: true, endedItself: true, lastExit: { code: 0, signal: null, at: null, uptime: 0, reason: 'finished before the daemon restarted' } }]])
  }

  processes () { // every live OS process of this slot
    return [this.#s.handle, this.#s.spare, ...this.#retiring].filter((h) => h && !h.exited)
  }

  setStatus (to, extra = {}) {
    const from = this.#s.status
    if (from === to) return
    this.#s.status = assertTransition(from, to)
    this.emit('status', { id: this.id, name: this.name, from, to, pid: this.pid, ...extra })
  }

  env () { return processEnv(this) }

  // ---- processes --------------------------------------------------------------------------

  // Forks and adopts a process, in this tick.
  fork () {
    const handle = this.#s.context.launcherFor(this.spec).launch(this.spec, this.env(), { index: this.index })
    this.emit('forked', { instance: this, handle }) // logs, metrics, the saved state: in this tick
    watchListening(this, handle) // the app listens, or another app has the port (port-claims.js)
    handle.once('exit', (exit) => this.onExit(handle, exit))
    return handle
  }

  readinessOf (handle, options) { return waitUntilReady(handle, readinessWait(this.#state(), handle, options)) }
  probeTarget (handle) { return probeTarget(this.#state(), handle) } // for daemon/health

  markReadiness (handle, ready, reason = null) {
    this.#apply(decideReadiness(this.#state(), { handle, ready, reason }, clock()))
  }

  // Stops one of this slot's processes, saying why (the journal reads it from its exit event).
  stopHandle (handle, cause, spec = this.spec) {
    handle.noteStopCause(cause)
    return stopProcess(handle, { ...spec, turns: this.#s.context.signalTurns })
  }

  // A port-claims refusal (port-claims.js) of the current process: the slot gives up with `reason`.
  refusePort (handle, reason) {
    if (handle === this.#s.handle) this.#apply([['set', { givingUp: reason }]])
    return this.stopHandle(handle, 'port taken', { ...this.spec, killTimeout: Math.min(this.spec.killTimeout ?? SPEC_DEFAULTS.killTimeout, 2000) })
  }

  // Launches a process into the slot; resolves when it is ready (the status turns online then),
  // rejects when it exits first or fails its readiness probe in time (it is then stopped, and
  // its exit goes through the restart policy like a crash). One still running at listen_timeout
  // without a verdict is online with a warning (wait-ready.js, aliveIsReady).
  launch () {
    this.#apply([['cancelRestart'], ['set', { givingUp: null }]])
    const handle = this.fork()
    this.#apply([['set', { handle, startedAt: performance.now(), readiness: null }], ['emit', 'process', handle], ['status', STATUS.LAUNCHING, { pid: handle.pid }]])
    const ready = this.readinessOf(handle, { aliveIsReady: true }).then((how) => {
      this.#apply(decideLaunchReady(this.#state(), { handle, how }, clock()))
      return how
    }, (err) => {
      if (err.details?.reason === 'timeout' && this.#s.handle === handle && !handle.exited) {
        handle.markNotReady(err.message)
        this.stopHandle(handle, 'not ready in time', { ...this.spec, killTimeout: Math.min(this.spec.killTimeout ?? SPEC_DEFAULTS.killTimeout, 2000) })
      }
      throw err
    })
    ready.catch(() => {})
    this.#s.ready = ready
    return ready
  }

  onExit (handle, exit) {
    const now = clock()
    const { effects, outcome } = decideExit(this.#state(), { handle, exit }, now)
    this.#apply(effects)
    this.emit('exit', exitEvent(this.#state(), handle, exit, outcome, now))
  }

  // ---- a reload's spare (slot-replace.js; decisions: instance-replace.js) -------------------
  holdSpare (spare) { this.#apply(decideSpareForked(this.#state(), { spare })) }
  dropSpare (spare, failure) { this.#apply(decideSpareFailed(this.#state(), { spare, ...failure })) }
  adoptSpare (spare, reason, oldPid) {
    const { effects, previous } = decideSpareReady(this.#state(), { spare, reason, oldPid }, clock())
    this.#apply(effects)
    return previous
  }

  // ---- what the app's operations call -------------------------------------------------------

  // Resolves when the slot is online (at once when it already is).
  async start (signal = null) {
    signal = this.workSignal(signal)
    signal.throwIfAborted()
    if (this.#s.stopping) await abortable(this.#s.stopping, signal)
    signal.throwIfAborted()
    if (this.status === STATUS.ONLINE) return
    if (this.status === STATUS.LAUNCHING) return abortable(this.#s.ready, signal)
    if (this.status === STATUS.WAITING || this.status === STATUS.ERRORED) this.setStatus(STATUS.STOPPED)
    this.#apply([['set', { crashTimes: [], unstableRuns: 0 }]])
    // a start of many processes forks a few per turn of the event loop (model/fork-pacer.js)
    const pacer = this.#s.context.forkPacer
    if (!pacer) return abortable(this.launch(), signal)
    await pacer.slot(signal)
    let forked = null
    try {
      signal.throwIfAborted()
      if (this.status === STATUS.ONLINE) return
      if (this.status === STATUS.LAUNCHING) return abortable(this.#s.ready, signal)
      const ready = this.launch() // forks now, in this tick
      forked = this.#s.handle
      return abortable(ready, signal)
    } finally {
      pacer.done(forked) // the pacer counts it as booting until it has
    }
  }

  // Stops every process of the slot, gracefully; callers during a stop share it. cause: why (the
  // user's command: 'stop', 'delete', 'kill', 'scale'; a restart's reason), for the journal.
  stop (cause = null) {
    if (this.#s.stopping) return this.#s.stopping
    this.#apply([['cancelRestart']])
    const processes = this.processes()
    if (!processes.length) {
      if (this.status !== STATUS.STOPPED) this.setStatus(STATUS.STOPPED)
      return Promise.resolve()
    }
    this.setStatus(STATUS.STOPPING)
    const spec = this.spec
    const stopping = Promise.all(processes.map((h) => this.stopHandle(h, cause, spec))).then(() => {
      this.#s.stopping = null
      this.setStatus(STATUS.STOPPED)
    })
    this.#s.stopping = stopping
    return stopping
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

  // Reload of one cluster slot (slot-replace.js).
  replace (options) {
    return replaceProcess(this, options)
  }

  // A policy (memory limit, watch) that keeps restarting this slot gives up: its processes are
  // stopped gracefully and it turns errored with `reason` (shown as the last exit's reason),
  // until the user starts, restarts, stops or deletes it. Nothing to do if the user stopped it.
  giveUp (reason) {
    if (this.status === STATUS.STOPPED || this.status === STATUS.STOPPING) return Promise.resolve(false)
    this.#apply([['cancelRestart']])
    if (!this.pid) {
      this.#apply([['set', { lastExit: { ...this.#s.lastExit, reason } }]])
      if (this.status === STATUS.ERRORED) this.emit('change')
      else this.setStatus(STATUS.ERRORED, { reason })
      return Promise.resolve(true)
    }
    this.#apply([['set', { givingUp: reason }]])
    return Promise.all(this.processes().map((h) => this.stopHandle(h, reason))).then(() => true)
  }

  signal (name) {
    if (!this.pid) return false
    this.#s.handle.noteSignalSent(name)
    return this.#s.handle.signal(name)
  }

  resetCounters () {
    this.#apply([['set', { restarts: 0, crashTimes: [], unstableRuns: 0, lastRestartDelay: 0, lastRestartReason: null }], ['emit', 'change']])
  }

  // Every restart counted, with its reason, and announced once; a reload adds { replaced, pid, oldPid }
  noteRestart (reason, extra = null) {
    this.#apply([['set', { restarts: this.#s.restarts + 1, lastRestartReason: reason }]])
    this.emit('restart', { id: this.id, name: this.name, instance: this.index, reason, ...extra })
  }

  toJSON (metrics) { return instanceJSON(this, metrics) }
}

module.exports = { Instance }
