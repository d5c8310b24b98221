'use strict'

const { STATUS } = require('../process-state')
const { createAppWatcher, watchKey } = require('./watch')
const { createCronJob } = require('./cron')
const { checkMemory } = require('./memory-limit')
const { createReplacer } = require('./replace')

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
function createPolicies ({ supervisor, metrics, logger, home = null }) {
  const live = new Set() // instance ids launched since the user last stopped them
  const watchers = new Map() // app name → { key, handle: app watcher }
  const crons = new Map() // app name → { key, handle: cron job }
  const memoryBusy = new Set() // instance ids being replaced for memory
  const replacer = createReplacer({ logger })
  let closed = false

  const restartable = (inst) => live.has(inst.id)

  // Watch restarts every live instance (one still starting may run the old code); cron leaves
  // alone instances on their way up or down, including those still inside the readiness wait
  // of their start (restarting those would fail the `xpm start` that launched them).
  function restartApp (name, reason, { settledOnly = false, key }) {
    const app = supervisor.apps.get(name)
    if (!app || closed) return null
    const skip = (inst) => !restartable(inst) || (settledOnly && settling(inst))
    return replacer.replace(app, app.instances.filter((inst) => !skip(inst)), reason, { key })
  }

  function settling (inst) {
    if (TRANSITIONAL.has(inst.status)) return true
    const settleMs = Math.min(inst.spec.minUptime ?? 1000, 1000)
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
        onTrigger: (reason) => restartApp(spec.name, reason, { key: 'watch' }),
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
    for (const inst of instances) live.delete(inst.id)
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
        const over = checkMemory({ limit, sample, pid: inst.pid, since: inst.onlineSince })
        if (!over) continue
        memoryBusy.add(inst.id)
        logger?.warn({ event: 'memory', app: app.name, id: inst.id, processPid: inst.pid, rss: over.rss, limit }, `${app.name}[${inst.index}]: ${over.reason}, replacing it`)
        replacer.replace(app, [inst], over.reason, { key: `memory:${inst.id}` })
          .finally(() => memoryBusy.delete(inst.id))
      }
    }
  }

  supervisor.on('change', sync)
  supervisor.on('status', onStatus)
  supervisor.on('command', onCommand)
  metrics?.on('sample', onSample)
  for (const inst of supervisor.allInstances?.() ?? []) if (inst.status !== STATUS.STOPPED) live.add(inst.id)
  sync()

  return {
    // For show/tests: what is armed right now.
    state: () => ({
      watching: [...watchers.keys()],
      cron: Object.fromEntries([...crons].map(([name, c]) => [name, c.handle.nextRun()?.toISOString() ?? null])),
      live: [...live]
    }),
    close () {
      closed = true
      supervisor.off('change', sync)
      supervisor.off('status', onStatus)
      supervisor.off('command', onCommand)
      metrics?.off('sample', onSample)
      for (const map of [watchers, crons]) {
        for (const { handle } of map.values()) handle.close()
        map.clear()
      }
    }
  }
}

module.exports = { createPolicies }
