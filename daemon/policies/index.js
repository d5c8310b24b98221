'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS } = require('../model/process-state')
const { createAppWatcher, watchKey } = require('./watch')
const { createCronJob } = require('./cron')
const { checkMemory, isWithinLimit } = require('./memory-limit')
const { createReplacer } = require('./replace')
const { createRestartGuard } = require('./restart-guard')
const { createWatchdog } = require('./watchdog-tracker')
const { SPEC_DEFAULTS } = require('../../lib/config/spec-defaults')

const TRANSITIONAL = new Set([STATUS.LAUNCHING, STATUS.STOPPING, STATUS.WAITING])

// The daemon's process policies: watch, cron_restart and max_memory_restart. Follows the
// supervisor: on every change it (re)arms a watcher and a cron job for each app that asks for
// one and is not stopped by the user, and closes those of stopped or deleted apps.
//
// Policies act on "live" instances: launched since they were last stopped by the user. A launch
// makes an instance live; `xpm stop` (the supervisor's 'command' event) ends that. So a live
// instance that crashed (errored: under watch it waits for the next change, see watch-crash.js)
// or exited on its own is restarted by a change or by cron, while one the user stopped, or one
// that was never started (restored as stopped, scaled up while stopped), is left alone.
//
// Watch and memory restarts go through the crash-loop accounting (restart-guard.js): they back
// off, and an instance they keep restarting is given up on: errored, with the reason, and no
// longer live, so no policy touches it until the user starts or restarts it. So do the
// watchdog's (max_event_loop_delay, max_heap: watchdog-tracker.js) and liveness probe failures
// (daemon/health, through restartFor()).
function createPolicies ({ supervisor, metrics, logger, home = null, now = () => performance.now(), clock = { setTimeout, clearTimeout } }) {
  const live = new Set() // instance ids launched since the user last stopped them
  const watchers = new Map() // app name → { key, handle: app watcher }
  const crons = new Map() // app name → { key, handle: cron job }
  const memoryBusy = new Set() // instance ids being replaced for memory
  const withinLimit = new Map() // instance id → pid of its process once seen under its memory limit
  const backoffs = new Set() // pending backoff waits: { timer, resolve }
  const replacer = createReplacer({ logger })
  const guard = createRestartGuard({ now })
  let closed = false

  const restartable = (inst) => live.has(inst.id)

  // Watch restarts every live instance (one still starting may run the old code); cron leaves
  // alone instances on their way up or down, including those still inside the readiness wait
  // of their start (restarting those would fail the `xpm start` that launched them).
  function restartApp (name, reason, { settledOnly = false, key, counted = null }) {
    const app = supervisor.apps.get(name)
    if (!app || closed) return null
    const skip = (inst) => !restartable(inst) || (settledOnly && settling(inst))
    const instances = app.instances.filter((inst) => !skip(inst))
    if (counted) return guardedReplace(app, instances, reason, { key, ...counted })
    return replacer.replace(app, instances, reason, { key })
  }

  // A counted policy restart: each instance's accounting says restart (after a backoff) or give
  // up. After the backoff, only instances still live and still running the process that was
  // judged (or still not running) are restarted.
  // pidOf(inst): the process the restart is about (default: the one running now); with
  // bindPid, the restart is dropped for an instance whose process has changed by the time the
  // job runs (replace.js).
  async function guardedReplace (app, instances, reason, { key, what, uptimeOf, pidOf = (inst) => inst.pid, bindPid = false }) {
    const go = []
    let delay = 0
    for (const inst of instances) {
      if (bindPid && pidOf(inst) !== inst.pid) continue // already gone
      const decision = guard.decide(inst, { spec: app.spec, uptime: uptimeOf(inst), what, cause: reason })
      if (decision.action === 'errored') {
        giveUp(app, inst, decision.reason)
        continue
      }
      go.push({ inst, pid: pidOf(inst) })
      delay = Math.max(delay, decision.delay)
    }
    if (!go.length) return { done: [], failed: null }
    if (delay > 0) {
      logger?.warn({ event: 'policy', app: app.name, ids: go.map((g) => g.inst.id), reason, delay }, `${app.name}: ${reason}: restarting in ${delay} ms (backoff: restarted again soon after its start)`)
      if (!(await wait(delay))) return { done: [], failed: null }
    }
    const still = go.filter(({ inst, pid }) => restartable(inst) && app.instances.includes(inst) && inst.pid === pid)
    const forPids = bindPid ? new Map(still.map(({ inst, pid }) => [inst.id, pid])) : null
    return replacer.replace(app, still.map((g) => g.inst), reason, { key, forPids })
  }

  function giveUp (app, inst, reason) {
    live.delete(inst.id)
    withinLimit.delete(inst.id)
    logger?.error({ event: 'policy', app: app.name, id: inst.id, reason }, `${inst.label ?? `${app.name}[${inst.index}]`} errored: ${reason}`)
    Promise.resolve(inst.giveUp(reason)).catch((err) => logger?.error({ event: 'policy', app: app.name, id: inst.id, err: err.message }, `${app.name}: giving up failed: ${err.message}`))
    sync()
  }

  // Resolves true after ms, false when the policies close first.
  function wait (ms) {
    return new Promise((resolve) => {
      const entry = { resolve }
      entry.timer = clock.setTimeout(() => {
        backoffs.delete(entry)
        resolve(!closed)
      }, ms)
      backoffs.add(entry)
    })
  }

  // How long a process worked before a watch change asked for its restart: its uptime when
  // the change came (the debounce wait does not count); the last run's, if it is not running.
  function watchUptime (inst) {
    if (!inst.pid) return inst.lastExit?.uptime ?? 0
    if (typeof inst.startedAt !== 'number') return 0
    return Math.max(0, now() - (inst.spec.watchDelay ?? SPEC_DEFAULTS.watchDelay) - inst.startedAt)
  }

  // A process that never was under its memory limit ran no stable while at all.
  function memoryUptime (inst) {
    if (withinLimit.get(inst.id) !== inst.pid || typeof inst.startedAt !== 'number') return 0
    return now() - inst.startedAt
  }

  function settling (inst) {
    if (TRANSITIONAL.has(inst.status)) return true
    const settleMs = Math.min(inst.spec.minUptime ?? SPEC_DEFAULTS.minUptime, 1000)
    return inst.status === STATUS.ONLINE && Date.now() - inst.onlineSince < settleMs + 250
  }

  function sync () {
    if (closed) return
    const ids = new Set()
    for (const app of supervisor.apps.values()) {
      for (const inst of app.instances) ids.add(inst.id)
      const active = app.instances.some(restartable)
      const spec = app.spec
      arm(watchers, app.name, active ? watchKey(spec) : null, () => createAppWatcher({
        spec,
        home,
        logFiles: [spec.logs?.outFile, spec.logs?.errorFile, spec.logs?.logFile].filter(Boolean),
        onTrigger: (reason) => restartApp(spec.name, reason, { key: 'watch', counted: { what: 'watch restarts', uptimeOf: watchUptime } }),
        logger
      }))
      arm(crons, app.name, active && spec.cronRestart ? spec.cronRestart : null, () => createCronJob({
        spec,
        onFire: (reason) => restartApp(spec.name, reason, { settledOnly: true, key: 'cron' }),
        logger
      }))
    }
    for (const map of [watchers, crons]) {
      for (const name of map.keys()) if (!supervisor.apps.has(name)) arm(map, name, null)
    }
    for (const id of live) if (!ids.has(id)) live.delete(id)
    for (const id of withinLimit.keys()) if (!ids.has(id)) withinLimit.delete(id)
    guard.prune(ids)
  }

  // Keeps map[name] in step with `key`: null closes it, a new key replaces it.
  function arm (map, name, key, create) {
    const current = map.get(name)
    if (current && current.key === key) return
    if (current) {
      current.handle.close()
      map.delete(name)
    }
    if (key) map.set(name, { key, handle: create() })
  }

  function onCommand ({ type, instances }) {
    if (type !== 'stop') return
    for (const inst of instances) {
      live.delete(inst.id)
      guard.forget(inst.id)
    }
    sync()
  }

  function onStatus (change) {
    if (change.to === STATUS.LAUNCHING) live.add(change.id)
  }

  function onSample (samples) {
    if (closed) return
    for (const app of supervisor.apps.values()) {
      const limit = app.spec.maxMemoryRestart
      if (!limit) continue
      for (const inst of app.instances) {
        if (inst.status !== STATUS.ONLINE || memoryBusy.has(inst.id) || !restartable(inst)) continue
        const sample = samples instanceof Map ? samples.get(inst.id) : metrics.latest?.(inst.id)
        const current = { limit, sample, pid: inst.pid, since: inst.onlineSince }
        if (isWithinLimit(current)) withinLimit.set(inst.id, inst.pid)
        const over = checkMemory(current)
        if (!over) continue
        memoryBusy.add(inst.id)
        logger?.warn({ event: 'memory', app: app.name, id: inst.id, processPid: inst.pid, rss: over.rss, limit }, `${app.name}[${inst.index}]: ${over.reason}, replacing it`)
        guardedReplace(app, [inst], over.reason, { key: `memory:${inst.id}`, what: 'memory restarts', uptimeOf: memoryUptime, bindPid: true })
          .catch((err) => logger?.error({ event: 'memory', app: app.name, id: inst.id, err: err.message }, `${app.name}: memory restart failed: ${err.message}`))
          .finally(() => memoryBusy.delete(inst.id))
      }
    }
  }

  // One instance restarted for a cause outside this file (a liveness probe, the watchdog),
  // counted like a memory restart. pid: the process it was raised for (default: the current
  // one); the restart is dropped if that process is gone by the time it would run. Resolves
  // with the replacer's result, or null when the instance is not live (the user stopped it),
  // its process already changed, or it is already being restarted for that cause.
  const busy = new Set() // `${key}@${pid}` of restarts in flight
  function restartFor (inst, reason, { key, what, uptime = 0, pid = inst.pid }) {
    const app = supervisor.apps.get(inst.name)
    const flight = `${key}@${pid}`
    if (!app || closed || !restartable(inst) || busy.has(flight) || !pid || pid !== inst.pid) return Promise.resolve(null)
    busy.add(flight)
    logger?.warn({ event: 'policy', app: app.name, id: inst.id, processPid: pid, reason }, `${inst.label ?? `${app.name}[${inst.index}]`}: ${reason}, replacing it`)
    return guardedReplace(app, [inst], reason, { key, what, uptimeOf: () => uptime, pidOf: () => pid, bindPid: true })
      .catch((err) => {
        logger?.error({ event: 'policy', app: app.name, id: inst.id, err: err.message }, `${app.name}: restart for ${reason} failed: ${err.message}`)
        return null
      })
      .finally(() => busy.delete(flight))
  }

  const watchdog = createWatchdog({ supervisor, restartFor, isLive: restartable, logger, now, clock })

  // A burst of changes (100 apps starting) costs one pass over the apps, on the next turn.
  let syncPending = false
  const syncSoon = () => {
    if (syncPending) return
    syncPending = true
    setImmediate(() => {
      if (!syncPending) return
      syncPending = false
      sync()
    })
  }
  const syncNow = () => {
    if (!syncPending) return
    syncPending = false
    sync()
  }

  const unsubscribe = supervisor.subscribe({ change: syncSoon, status: onStatus, command: onCommand })
  metrics?.on('sample', onSample)
  for (const inst of supervisor.allInstances?.() ?? []) if (inst.status !== STATUS.STOPPED) live.add(inst.id)
  sync()

  return {
    // For show/tests: what is armed right now.
    state: () => {
      syncNow()
      return {
        watching: [...watchers.keys()],
        cron: Object.fromEntries([...crons].map(([name, c]) => [name, c.handle.nextRun()?.toISOString() ?? null])),
        live: [...live]
      }
    },
    restartFor,
    close () {
      closed = true
      watchdog.close()
      unsubscribe()
      metrics?.off('sample', onSample)
      for (const entry of backoffs) {
        clock.clearTimeout(entry.timer)
        entry.resolve(false)
      }
      backoffs.clear()
      for (const map of [watchers, crons]) {
        for (const { handle } of map.values()) handle.close()
        map.clear()
      }
    }
  }
}

module.exports = { createPolicies }
