'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS } = require('../model/process-state')
const { describeProbe } = require('../../lib/config/health-types')
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
function createHealth ({ supervisor, policies, prober, logger = null, now = () => performance.now(), clock = { setTimeout, clearTimeout } }) {
  const armed = new Map() // instance id → { inst, handle, key, loops: [{ timer, stopped }] }
  let closed = false
  let pending = false

  function keyOf (spec) {
    return JSON.stringify([spec.readiness ?? null, spec.liveness ?? null])
  }

  function sync (inst) {
    if (closed) return
    const spec = inst.spec
    const handle = inst.handle
    const want = inst.status === STATUS.ONLINE && handle && !handle.exited && (spec.readiness || spec.liveness) && supervisor.apps.get(inst.name)?.instances.includes(inst)
    const current = armed.get(inst.id)
    if (current && (!want || current.handle !== handle || current.key !== keyOf(spec) || current.inst !== inst)) disarm(inst.id)
    if (!want || armed.has(inst.id)) return
    // Aborted when the process stops being probed: a probe still running (an exec command and
    // its process group) ends then, and gives its slot back.
    const entry = { inst, handle, key: keyOf(spec), loops: [], cancel: new AbortController() }
    armed.set(inst.id, entry)
    if (spec.readiness) entry.loops.push(loop(entry, spec.readiness, 'readiness', spec.readiness.interval))
    if (spec.liveness) entry.loops.push(loop(entry, spec.liveness, 'liveness', spec.liveness.initialDelay))
  }

  function disarm (id) {
    const entry = armed.get(id)
    if (!entry) return
    armed.delete(id)
    entry.cancel.abort(new Error('probing stopped'))
    for (const l of entry.loops) {
      l.stopped = true
      clock.clearTimeout(l.timer)
    }
  }

  // One probe loop of one process. firstIn: ms until its first run.
  function loop (entry, probe, role, firstIn) {
    const l = { timer: null, stopped: false, state: PASSING, passed: false }
    const { inst, handle } = entry
    const schedule = (ms) => {
      if (l.stopped) return
      l.timer = clock.setTimeout(run, ms)
      l.timer.unref?.()
    }
    const run = async () => {
      l.timer = null
      if (l.stopped) return
      const result = await prober.probe(probe, inst.probeTarget(handle), { role, signal: entry.cancel.signal })
      if (l.stopped || closed) return
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
      const uptime = l.passed ? now() - inst.startedAt : 0
      const done = await policies.restartFor(inst, reason, { key: `liveness:${inst.id}`, what: 'liveness restarts', uptime, pid: handle.pid })
      // Not replaced (rolled back, the user stopped it meanwhile): probe it afresh.
      if (!closed && armed.get(inst.id) === entry && inst.handle === handle && !handle.exited && !done?.done?.includes(inst.id)) {
        l.stopped = false
        l.state = PASSING
        schedule(probe.interval)
      }
    }
    schedule(firstIn)
    return l
  }

  const onStatus = (change) => {
    const inst = supervisor.apps.get(change.name)?.instances.find((i) => i.id === change.id)
    if (inst) sync(inst)
    else disarm(change.id)
  }
  // Spec changes (a reload with a new ecosystem file) and removed instances: one pass, later.
  const onChange = () => {
    if (pending || closed) return
    pending = true
    setImmediate(() => {
      pending = false
      if (closed) return
      const seen = new Set()
      for (const app of supervisor.apps.values()) {
        for (const inst of app.instances) {
          seen.add(inst.id)
          if (armed.has(inst.id) || ((app.spec.readiness || app.spec.liveness) && inst.status === STATUS.ONLINE)) sync(inst)
        }
      }
      for (const id of [...armed.keys()]) if (!seen.has(id)) disarm(id)
    })
  }

  const unsubscribe = supervisor.subscribe({ status: onStatus, change: onChange })
  onChange()

  return {
    // For tests and diagnostics: which processes are probed.
    state: () => [...armed.values()].map((e) => ({ id: e.inst.id, pid: e.handle.pid, probes: [e.inst.spec.readiness, e.inst.spec.liveness].filter(Boolean).map(describeProbe) })),
    close () {
      closed = true
      unsubscribe()
      for (const id of [...armed.keys()]) disarm(id)
    }
  }
}

module.exports = { createHealth }
