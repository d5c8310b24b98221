'use strict'

// Restarts instances for a policy (watch, memory, cron) and records why. Goes through the
// reload job, so cluster workers are replaced gracefully (fork mode and instances that are not
// online fall back to a restart there) and never interleave with a user's reload of the same app.
function createReplacer ({ reloader, logger }) {
  async function replaceOne (inst, reason) {
    if (!reloader) return inst.restart(reason)
    await reloader.reload(String(inst.id), { reason })
  }

  // One instance after the other, like a reload; stops at the first failure (the rest keep
  // running their current process).
  async function replace (instances, reason, { skip = () => false } = {}) {
    const done = []
    for (const inst of instances) {
      if (skip(inst) || !inst.app.instances.includes(inst)) continue
      try {
        await replaceOne(inst, reason)
        done.push(inst.id)
      } catch (err) {
        logger?.warn({ event: 'policy', app: inst.name, id: inst.id, reason, err: err.message }, `${inst.name}[${inst.index}]: restart for ${reason} failed: ${err.message}`)
        return { done, failed: { id: inst.id, message: err.message } }
      }
    }
    return { done, failed: null }
  }

  return { replace, replaceOne }
}

module.exports = { createReplacer }
