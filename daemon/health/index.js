'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS } = require('../model/process-state')
const { describeProbe } = require('../../lib/shared/config/health-types')
const { countResult, PASSING } = require('../model/probe-counter')

// The health checks: readiness and liveness probes of online processes (docs/health.md). The
// start-up readiness gate is not here: it is part of the instance's readiness wait
// (daemon/wait-ready.js, daemon/health/gate.js), for a start and for every reload replacement.
//
// For each online process of an app with probes, two loops, each one probe at a time (the next
// runs `interval` after the previous one ended, never two at once):
//  - readiness: after failure_threshold failures in a row the process is marked not ready
//    (Instance.markReadiness: `xpm list` shows it; the status stays online), and ready again
//    after success_threshold passes;
//  - liveness: the first probe after initial_delay, then every interval; failure_threshold
//    failures in a row restart the process gracefully through the policies (restartFor: cluster
//    workers are replaced as a reload does, the restart is counted by the crash-loop accounting),
//    reason 'liveness: GET /healthz → 503'. A process that never passed its liveness probe
//    counts as an unstable run (it backs off, then ends errored); one that did, by its uptime.
// The loops follow the instance: a new process (a restart, a reload's replacement) starts them
// afresh, a process that stops being online ends them. Probes run in the prober's bounded pools.
class HealthChecks {
  constructor ({ supervisor, policies, prober, logger = null, now = () => performance.now(), clock = { setTimeout, clearTimeout } }) {
    this.supervisor = supervisor
    this.policies = policies
    this.prober = prober
    this.logger = logger
    this.now = now
    this.clock = clock
    this.armed = new Map() // instance id → { inst, handle, key, loops: [{ timer, stopped }] }
    this.closed = false
    this.pending = false
    this.unsubscribe = supervisor.subscribe({ status: (change) => this.onStatus(change), change: () => this.onChange() })
    this.onChange()
  }

  sync (inst) {
    if (this.closed) return
    const spec = inst.spec
    const handle = inst.handle
    const want = inst.status === STATUS.ONLINE && handle && !handle.exited && (spec.readiness || spec.liveness) && this.supervisor.apps.get(inst.name)?.instances.includes(inst)
    const current = this.armed.get(inst.id)
    if (current && (!want || current.handle !== handle || current.key !== keyOf(spec) || current.inst !== inst)) this.disarm(inst.id)
    if (!want || this.armed.has(inst.id)) return
    // Aborted when the process stops being probed: a probe still running (an exec command and
    // its process group) ends then, and gives its slot back.
    const entry = { inst, handle, key: keyOf(spec), loops: [], cancel: new AbortController() }
    this.armed.set(inst.id, entry)
    if (spec.readiness) entry.loops.push(this.loop(entry, spec.readiness, 'readiness', spec.readiness.interval))
    if (spec.liveness) entry.loops.push(this.loop(entry, spec.liveness, 'liveness', spec.liveness.initialDelay))
  }

  disarm (id) {
    const entry = this.armed.get(id)
    if (!entry) return
    this.armed.delete(id)
    entry.cancel.abort(new Error('probing stopped'))
    for (const l of entry.loops) {
      l.stopped = true
      this.clock.clearTimeout(l.timer)
    }
  }

  // One probe loop of one process. firstIn: ms until its first run.
  loop (entry, probe, role, firstIn) {
    const l = { timer: null, stopped: false, state: PASSING, passed: false }
    const { inst, handle } = entry
    const logger = this.logger
    const schedule = (ms) => {
      if (l.stopped) return
      l.timer = this.clock.setTimeout(run, ms)
      l.timer.unref?.()
    }
    const run = async () => {
      l.timer = null
      if (l.stopped) return
      const result = await this.prober.probe(probe, inst.probeTarget(handle), { role, signal: entry.cancel.signal })
      if (l.stopped || this.closed) return
      if (result.ok) l.passed = true
      l.state = countResult(l.state, result.ok, probe)
      if (role === 'readiness') {
        if (l.state.changed) {
          logger?.[l.state.passing ? 'info' : 'warn']({ event: 'readiness', app: inst.name, id: inst.id, processPid: handle.pid, ready: l.state.passing, detail: result.detail },
            `${inst.label}: ${l.state.passing ? 'ready again' : `not ready: ${result.detail} (${probe.failureThreshold} failures in a row)`}`)
          inst.markReadiness(handle, l.state.passing, l.state.passing ? null : result.detail)
        }
        return schedule(probe.interval)
      }
      if (!l.state.changed || l.state.passing) return schedule(probe.interval)
      // liveness failed failure_threshold times in a row: replace the process
      l.stopped = true
      const reason = `liveness: ${result.detail}`
      logger?.warn({ event: 'liveness', app: inst.name, id: inst.id, processPid: handle.pid, detail: result.detail, failures: probe.failureThreshold }, `${inst.label}: ${reason} (${probe.failureThreshold} failures in a row)`)
      const uptime = l.passed ? this.now() - inst.startedAt : 0
      const done = await this.policies.restartFor(inst, reason, { key: `liveness:${inst.id}`, what: 'liveness restarts', uptime, pid: handle.pid })
      // Not replaced (rolled back, the user stopped it meanwhile): probe it afresh.
      if (!this.closed && this.armed.get(inst.id) === entry && inst.handle === handle && !handle.exited && !done?.done?.includes(inst.id)) {
        l.stopped = false
        l.state = PASSING
        schedule(probe.interval)
      }
    }
    schedule(firstIn)
    return l
  }

  onStatus (change) {
    const inst = this.supervisor.apps.get(change.name)?.instances.find((i) => i.id === change.id)
    if (inst) this.sync(inst)
    else this.disarm(change.id)
  }

  // Spec changes (a reload with a new ecosystem file) and removed instances: one pass, later.
  onChange () {
    if (this.pending || this.closed) return
    this.pending = true
    setImmediate(() => {
      this.pending = false
      if (this.closed) return
      const seen = new Set()
      for (const app of this.supervisor.apps.values()) {
        for (const inst of app.instances) {
          seen.add(inst.id)
          if (this.armed.has(inst.id) || ((app.spec.readiness || app.spec.liveness) && inst.status === STATUS.ONLINE)) this.sync(inst)
        }
      }
      for (const id of [...this.armed.keys()]) if (!seen.has(id)) this.disarm(id)
    })
  }

  // For tests and diagnostics: which processes are probed.
  state () {
    return [...this.armed.values()].map((e) => ({ id: e.inst.id, pid: e.handle.pid, probes: [e.inst.spec.readiness, e.inst.spec.liveness].filter(Boolean).map(describeProbe) }))
  }

  close () {
    this.closed = true
    this.unsubscribe()
    for (const id of [...this.armed.keys()]) this.disarm(id)
  }
}

function keyOf (spec) {
  return JSON.stringify([spec.readiness ?? null, spec.liveness ?? null])
}

function createHealth (options) {
  return new HealthChecks(options)
}

module.exports = { createHealth, HealthChecks }
