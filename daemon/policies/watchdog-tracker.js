'use strict'

const { STATUS } = require('../model/process-state')
const { agentMetrics } = require('../metrics/agent-message')
const { judgeLoop, judgeHeap, reportsToKeep } = require('./watchdog')

// The watchdog: max_event_loop_delay and max_heap, judged from the agent's reports (watchdog.js).
// The agents of these apps report every second, changed figures or not (the supervisor tracks
// them `steady`, daemon/metrics): a missing report is a blocked loop. Each report of a process
// is judged when it comes; a check every TICK_MS catches the loops that have stopped reporting.
// The check runs only while some app has a watchdog. A verdict replaces the process gracefully
// through restartFor() (the crash-loop accounting of restart-guard.js), reason
// 'event loop blocked: p99 1.8 s (max_event_loop_delay 1s)' or 'heap (1612.0M > 1.5G)'.
//
// Only processes with the agent's metrics are watched (a Node app with `metrics` on): another
// interpreter, or `metrics: false`, never reports, and is said once in the daemon log.
const TICK_MS = 500
const AGENT_START_MS = 1000 // the agent's reporter starts a second after the app's entry ran
const REPORT_MS = 1000 // the full rate (daemon/metrics FULL_MS)

const wants = (spec) => Boolean(spec.maxEventLoopDelay || spec.maxHeap)

class WatchdogTracker {
  constructor ({ supervisor, restartFor, isLive = () => true, logger = null, now, clock = { setTimeout, clearTimeout } }) {
    this.supervisor = supervisor
    this.restartFor = restartFor
    this.isLive = isLive
    this.logger = logger
    this.now = now
    this.clock = clock
    this.watched = new WeakMap() // handle → { since, reports: [{ at, p99 }], heaps: [], last, loopOk, heapOk }
    this.warned = new Set() // app names told their watchdog cannot work
    this.timer = null
    this.closed = false
    this.unsubscribe = supervisor.subscribe({ forked: (forked) => this.onForked(forked), change: () => this.onChange() })
    this.onChange()
  }

  stateOf (inst, handle) {
    let state = this.watched.get(handle)
    if (!state) {
      state = { since: this.now() + AGENT_START_MS, reports: [], heaps: [], last: {}, loopOk: false, heapOk: false }
      this.watched.set(handle, state)
    }
    return state
  }

  // Whether this instance's current process can be judged now.
  judgeable (inst) {
    const spec = inst.spec
    if (!wants(spec) || inst.status !== STATUS.ONLINE || !inst.handle || inst.handle.exited || !this.isLive(inst)) return false
    if (!inst.handle.reportsBoot || spec.metrics === false) {
      if (!this.warned.has(spec.name)) {
        this.warned.add(spec.name)
        this.logger?.warn({ event: 'watchdog', app: spec.name }, `${spec.name}: max_event_loop_delay and max_heap need the agent's metrics (a Node app with metrics on); not watched`)
      }
      return false
    }
    return true
  }

  onForked ({ instance, handle }) {
    handle.on('message', (msg) => {
      if (this.closed || instance.handle !== handle || !wants(instance.spec)) return
      const data = agentMetrics(msg)
      if (!data) return
      const state = this.stateOf(instance, handle)
      Object.assign(state.last, data)
      const keep = reportsToKeep(instance.spec.maxEventLoopDelay, REPORT_MS)
      state.reports.push({ at: this.now(), p99: state.last.elP99 ?? null })
      state.heaps.push(state.last.heapUsed ?? null)
      if (state.reports.length > keep) state.reports.splice(0, state.reports.length - keep)
      if (state.heaps.length > keep) state.heaps.splice(0, state.heaps.length - keep)
      this.judge(instance)
    })
    if (instance.spec.maxEventLoopDelay) this.arm()
  }

  judge (inst) {
    if (!this.judgeable(inst)) return
    const spec = inst.spec
    const state = this.stateOf(inst, inst.handle)
    if (state.judged) return
    const t = this.now()
    const loopLimit = spec.maxEventLoopDelay
    if (loopLimit) {
      const latest = state.reports[state.reports.length - 1]
      if (latest && typeof latest.p99 === 'number' && latest.p99 <= loopLimit) state.loopOk = true
      const blocked = judgeLoop({ limit: loopLimit, reports: state.reports, since: state.since, now: t, intervalMs: REPORT_MS })
      if (blocked) return this.act(inst, blocked.reason, 'watchdog', state.loopOk ? t - inst.startedAt : 0)
    }
    if (spec.maxHeap) {
      const latest = state.heaps[state.heaps.length - 1]
      if (typeof latest === 'number' && latest <= spec.maxHeap) state.heapOk = true
      const over = judgeHeap({ limit: spec.maxHeap, heaps: state.heaps })
      if (over) return this.act(inst, over.reason, 'heap', state.heapOk ? t - inst.startedAt : 0)
    }
  }

  // One verdict per process while its restart runs; if that restart did not replace it (rolled
  // back, cancelled), it is judged afresh.
  act (inst, reason, kind, uptime) {
    const handle = inst.handle
    this.stateOf(inst, handle).judged = true
    Promise.resolve(this.restartFor(inst, reason, { key: `watchdog:${inst.id}`, what: kind === 'heap' ? 'heap restarts' : 'watchdog restarts', uptime, pid: handle.pid }))
      .finally(() => {
        if (!handle.exited) this.watched.delete(handle)
      })
  }

  tick () {
    this.timer = null
    if (this.closed) return
    let any = false
    for (const app of this.supervisor.apps.values()) {
      if (!app.spec.maxEventLoopDelay) continue
      any = true
      for (const inst of app.instances) this.judge(inst)
    }
    if (any) this.arm()
  }

  arm () {
    if (this.closed || this.timer) return
    this.timer = this.clock.setTimeout(() => this.tick(), TICK_MS)
    this.timer.unref?.()
  }

  onChange () {
    for (const app of this.supervisor.apps.values()) {
      if (app.spec.maxEventLoopDelay) return this.arm()
    }
  }

  close () {
    this.closed = true
    this.clock.clearTimeout(this.timer)
    this.timer = null
    this.unsubscribe()
  }
}

function createWatchdog (options) {
  return new WatchdogTracker(options)
}

module.exports = { createWatchdog, WatchdogTracker, TICK_MS, AGENT_START_MS }
