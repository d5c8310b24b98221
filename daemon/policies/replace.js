'use strict'

// Restarts instances for a policy (watch, memory, cron) and records why. It is a reload job of
// the app, queued behind whatever the app is doing like a user's reload: cluster workers are
// replaced gracefully, fork mode restarts, instances the user stopped are left alone, and a
// user's stop or delete cancels it. While one is still queued, another for the same cause joins
// it instead of queueing a second (`key`).
function createReplacer ({ logger }) {
  async function replace (app, instances, reason, { key = reason } = {}) {
    if (!instances.length) return { done: [], failed: null }
    try {
      const result = await app.reload(instances, { reason, coalesce: `policy:${key}` })
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
