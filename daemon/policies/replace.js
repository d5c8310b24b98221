'use strict'

// Restarts instances for a policy (watch, memory, cron) and records why. It is a reload job of
// the app, queued behind whatever the app is doing like a user's reload: cluster workers are
// replaced gracefully, fork mode restarts, instances the user stopped are left alone, and a
// user's stop or delete cancels it. While one is still queued, another for the same cause joins
// it instead of queueing a second (`key`).
//
// forPids (Map instance id → pid): a restart about a process (liveness, watchdog, heap, memory)
// names it; when the job runs, an instance whose process is no longer that one (a reload or a
// restart queued before it has replaced it, it crashed) is left alone: the restart is dropped,
// not carried over to a new process that did nothing wrong. Only jobs for the same processes
// join each other.
function createReplacer ({ logger }) {
  async function replace (app, instances, reason, { key = reason, forPids = null } = {}) {
    if (!instances.length) return { done: [], failed: null }
    try {
      const coalesce = forPids ? `policy:${key}@${instances.map((i) => forPids.get(i.id)).join(',')}` : `policy:${key}`
      const onlyIf = forPids ? (inst) => forPids.get(inst.id) === inst.pid : null
      const result = await app.reload(instances, { reason, coalesce, onlyIf })
      if (result?.dropped?.length) {
        const gone = instances.filter((i) => result.dropped.includes(i.id)).map((i) => `${i.label ?? `${app.name}[${i.index}]`} (pid ${forPids.get(i.id)})`)
        logger?.info({ event: 'policy', app: app.name, reason, dropped: result.dropped }, `${app.name}: restart for ${reason} dropped: ${gone.join(', ')} already gone`)
      }
      if (result?.failed) throw new Error(result.failed.reason)
      return { done: result?.replaced.map((r) => r.id).concat(result.restarted) ?? [], failed: null }
    } catch (err) {
      const cancelled = err.code === 'XPM_ERR_CANCELLED' || err.code === 'XPM_ERR_APP_NOT_FOUND'
      logger?.[cancelled ? 'info' : 'warn']({ event: 'policy', app: app.name, reason, err: err.message }, `${app.name}: restart for ${reason} ${cancelled ? 'cancelled' : 'failed'}: ${err.message}`)
      return { done: [], failed: { message: err.message } }
    }
  }

  return { replace }
}

module.exports = { createReplacer }
