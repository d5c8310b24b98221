'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS } = require('../model/process-state')
const { createAppWatcher, watchKey } = require('./watch')
const { createCronJob } = require('./cron')
const { checkMemory, isWithinLimit } = require('./memory-limit')
const { createReplacer } = require('./replace')
const { createRestartGuard } = require('./restart-guard')
const { createWatchdog } = require('./watchdog-tracker')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

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
// The state the policies share is the fields below; each method reads and writes them.
class Policies {
  constructor ({ supervisor, metrics, logger, home = null, now = () => performance.now(), clock = { setTimeout, clearTimeout } }) {
    this.supervisor = supervisor
    this.metrics = metrics
    this.logger = logger
    this.home = home
    this.now = now
    this.clock = clock
    this.live = new Set() // instance ids launched since the user last stopped them
    this.watchers = new Map() // app name → { key, handle: app watcher }
    this.crons = new Map() // app name → { key, handle: cron job }
    this.memoryBusy = new Set() // instance ids being replaced for memory
    this.withinLimit = new Map() // instance id → pid of its process once seen under its memory limit
    this.backoffs = new Set() // pending backoff waits: { timer, resolve }
    this.busy = new Set() // `${key}@${pid}` of restartFor restarts in flight
    this.replacer = createReplacer({ logger })
    this.guard = createRestartGuard({ now })
    this.closed = false
    this.syncPending = false
    this.restartable = (inst) => this.live.has(inst.id)
    this.restartFor = this.restartFor.bind(this)
    this.onSample = this.onSample.bind(this)
    this.watchdog = createWatchdog({ supervisor, restartFor: this.restartFor, isLive: this.restartable, logger, now, clock })
    this.unsubscribe = supervisor.subscribe({
      change: () => this.syncSoon(),
      status: (change) => this.onStatus(change),
      command: (command) => this.onCommand(command)
    })
    metrics?.on('sample', this.onSample)
    for (const inst of supervisor.allInstances?.() ?? []) if (inst.status !== STATUS.STOPPED) this.live.add(inst.id)
    this.sync()
  }

  // Watch restarts every live instance (one still starting may run the old code); cron leaves
  // alone instances on their way up or down, including those still inside the readiness wait
  // of their start (restarting those would fail the `xpm start` that launched them).
  restartApp (name, reason, { settledOnly = false, key, counted = null }) {
    const app = this.supervisor.apps.get(name)
    if (!app || this.closed) return null
    const skip = (inst) => !this.restartable(inst) || (settledOnly && settling(inst))
    const instances = app.instances.filter((inst) => !skip(inst))
    if (counted) return this.guardedReplace(app, instances, reason, { key, ...counted })
    return this.replacer.replace(app, instances, reason, { key })
  }

  // A counted policy restart: each instance's accounting says restart (after a backoff) or give
  // up. After the backoff, only instances still live and still running the process that was
  // judged (or still not running) are restarted.
  // pidOf(inst): the process the restart is about (default: the one running now); with
  // bindPid, the restart is dropped for an instance whose process has changed by the time the
  // job runs (replace.js).
  async guardedReplace (app, instances, reason, { key, what, uptimeOf, pidOf = (inst) => inst.pid, bindPid = false }) {
    const go = []
    let delay = 0
    for (const inst of instances) {
      if (bindPid && pidOf(inst) !== inst.pid) continue // already gone
      const decision = this.guard.decide(inst, { spec: app.spec, uptime: uptimeOf(inst), what, cause: reason })
      if (decision.action === 'errored') {
        this.giveUp(app, inst, decision.reason)
        continue
      }
      go.push({ inst, pid: pidOf(inst) })
      delay = Math.max(delay, decision.delay)
    }
    if (!go.length) return { done: [], failed: null }
    if (delay > 0) {
      this.logger?.warn({ event: 'policy', app: app.name, ids: go.map((g) => g.inst.id), reason, delay }, `${app.name}: ${reason}: restarting in ${delay} ms (backoff: restarted again soon after its start)`)
      if (!(await this.wait(delay))) return { done: [], failed: null }
    }
    const still = go.filter(({ inst, pid }) => this.restartable(inst) && app.instances.includes(inst) && inst.pid === pid)
    const forPids = bindPid ? new Map(still.map(({ inst, pid }) => [inst.id, pid])) : null
    return this.replacer.replace(app, still.map((g) => g.inst), reason, { key, forPids })
  }

  giveUp (app, inst, reason) {
    const logger = this.logger
    this.live.delete(inst.id)
    this.withinLimit.delete(inst.id)
    logger?.error({ event: 'policy', app: app.name, id: inst.id, reason }, `${inst.label ?? `${app.name}[${inst.index}]`} errored: ${reason}`)
    Promise.resolve(inst.giveUp(reason)).catch((err) => logger?.error({ event: 'policy', app: app.name, id: inst.id, err: err.message }, `${app.name}: giving up failed: ${err.message}`))
    this.sync()
  }

  // Resolves true after ms, false when the policies close first.
  wait (ms) {
    return new Promise((resolve) => {
      const entry = { resolve }
      entry.timer = this.clock.setTimeout(() => {
        this.backoffs.delete(entry)
        resolve(!this.closed)
      }, ms)
      this.backoffs.add(entry)
    })
  }

  // How long a process worked before a watch change asked for its restart: its uptime when
  // the change came (the debounce wait does not count); the last run's, if it is not running.
  watchUptime (inst) {
    if (!inst.pid) return inst.lastExit?.uptime ?? 0
    if (typeof inst.startedAt !== 'number') return 0
    return Math.max(0, this.now() - (inst.spec.watchDelay ?? SPEC_DEFAULTS.watchDelay) - inst.startedAt)
  }

  // A process that never was under its memory limit ran no stable while at all.
  memoryUptime (inst) {
    if (this.withinLimit.get(inst.id) !== inst.pid || typeof inst.startedAt !== 'number') return 0
    return this.now() - inst.startedAt
  }

  sync () {
    if (this.closed) return
    const { supervisor, home, logger } = this
    const ids = new Set()
    for (const app of supervisor.apps.values()) {
      for (const inst of app.instances) ids.add(inst.id)
      const active = app.instances.some(this.restartable)
      const spec = app.spec
      arm(this.watchers, app.name, active ? watchKey(spec) : null, () => createAppWatcher({
        spec,
        home,
        logFiles: [spec.logs?.outFile, spec.logs?.errorFile, spec.logs?.logFile].filter(Boolean),
        onTrigger: (reason) => this.restartApp(spec.name, reason, { key: 'watch', counted: { what: 'watch restarts', uptimeOf: (inst) => this.watchUptime(inst) } }),
        logger
      }))
      arm(this.crons, app.name, active && spec.cronRestart ? spec.cronRestart : null, () => createCronJob({
        spec,
        onFire: (reason) => this.restartApp(spec.name, reason, { settledOnly: true, key: 'cron' }),
        logger
      }))
    }
    for (const map of [this.watchers, this.crons]) {
      for (const name of map.keys()) if (!supervisor.apps.has(name)) arm(map, name, null)
    }
    for (const id of this.live) if (!ids.has(id)) this.live.delete(id)
    for (const id of this.withinLimit.keys()) if (!ids.has(id)) this.withinLimit.delete(id)
    this.guard.prune(ids)
  }

  // A burst of changes (100 apps starting) costs one pass over the apps, on the next turn.
  syncSoon () {
    if (this.syncPending) return
    this.syncPending = true
    setImmediate(() => this.syncNow())
  }

  syncNow () {
    if (!this.syncPending) return
    this.syncPending = false
    this.sync()
  }

  onCommand ({ type, instances }) {
    if (type !== 'stop') return
    for (const inst of instances) {
      this.live.delete(inst.id)
      this.guard.forget(inst.id)
    }
    this.sync()
  }

  onStatus (change) {
    if (change.to === STATUS.LAUNCHING) this.live.add(change.id)
  }

  onSample (samples) {
    if (this.closed) return
    const logger = this.logger
    for (const app of this.supervisor.apps.values()) {
      const limit = app.spec.maxMemoryRestart
      if (!limit) continue
      for (const inst of app.instances) {
        if (inst.status !== STATUS.ONLINE || this.memoryBusy.has(inst.id) || !this.restartable(inst)) continue
        const sample = samples instanceof Map ? samples.get(inst.id) : this.metrics.latest?.(inst.id)
        const current = { limit, sample, pid: inst.pid, since: inst.onlineSince }
        if (isWithinLimit(current)) this.withinLimit.set(inst.id, inst.pid)
        const over = checkMemory(current)
        if (!over) continue
        this.memoryBusy.add(inst.id)
        logger?.warn({ event: 'memory', app: app.name, id: inst.id, processPid: inst.pid, rss: over.rss, limit }, `${app.name}[${inst.index}]: ${over.reason}, replacing it`)
        this.guardedReplace(app, [inst], over.reason, { key: `memory:${inst.id}`, what: 'memory restarts', uptimeOf: (i) => this.memoryUptime(i), bindPid: true })
          .catch((err) => logger?.error({ event: 'memory', app: app.name, id: inst.id, err: err.message }, `${app.name}: memory restart failed: ${err.message}`))
          .finally(() => this.memoryBusy.delete(inst.id))
      }
    }
  }

  // One instance restarted for a cause outside this file (a liveness probe, the watchdog),
  // counted like a memory restart. pid: the process it was raised for (default: the current
  // one); the restart is dropped if that process is gone by the time it would run. Resolves
  // with the replacer's result, or null when the instance is not live (the user stopped it),
  // its process already changed, or it is already being restarted for that cause.
  restartFor (inst, reason, { key, what, uptime = 0, pid = inst.pid }) {
    const logger = this.logger
    const app = this.supervisor.apps.get(inst.name)
    const flight = `${key}@${pid}`
    if (!app || this.closed || !this.restartable(inst) || this.busy.has(flight) || !pid || pid !== inst.pid) return Promise.resolve(null)
    this.busy.add(flight)
    logger?.warn({ event: 'policy', app: app.name, id: inst.id, processPid: pid, reason }, `${inst.label ?? `${app.name}[${inst.index}]`}: ${reason}, replacing it`)
    return this.guardedReplace(app, [inst], reason, { key, what, uptimeOf: () => uptime, pidOf: () => pid, bindPid: true })
      .catch((err) => {
        logger?.error({ event: 'policy', app: app.name, id: inst.id, err: err.message }, `${app.name}: restart for ${reason} failed: ${err.message}`)
        return null
      })
      .finally(() => this.busy.delete(flight))
  }

  // For show/tests: what is armed right now.
  state () {
    this.syncNow()
    return {
      watching: [...this.watchers.keys()],
      cron: Object.fromEntries([...this.crons].map(([name, c]) => [name, c.handle.nextRun()?.toISOString() ?? null])),
      live: [...this.live]
    }
  }

  close () {
    this.closed = true
    this.watchdog.close()
    this.unsubscribe()
    this.metrics?.off('sample', this.onSample)
    for (const entry of this.backoffs) {
      this.clock.clearTimeout(entry.timer)
      entry.resolve(false)
    }
    this.backoffs.clear()
    for (const map of [this.watchers, this.crons]) {
      for (const { handle } of map.values()) handle.close()
      map.clear()
    }
  }
}

function settling (inst) {
  if (TRANSITIONAL.has(inst.status)) return true
  const settleMs = Math.min(inst.spec.minUptime ?? SPEC_DEFAULTS.minUptime, 1000)
  return inst.status === STATUS.ONLINE && Date.now() - inst.onlineSince < settleMs + 250
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

function createPolicies (options) {
  return new Policies(options)
}

module.exports = { createPolicies, Policies }
