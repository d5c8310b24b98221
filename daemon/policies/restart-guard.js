'use strict'

const { countRestart, policyFromSpec } = require('../model/restart-policy')

// Memory-limit and watch restarts go through the crash-loop accounting of restart-policy.js, per
// instance and with the app's own max_restarts, restart_window, min_uptime and backoff: a policy
// that keeps restarting an instance waits longer each time and finally gives up ('errored').
// Cron restarts are not counted: they happen when the user asked for them.
//
// uptime: how long the process did its work before the policy wanted it gone. A memory restart
// of a process that was never under its limit, or a watch restart for a change made right after
// the process started (an app writing into its own watched folder), has a short one.
// → { action: 'restart', delay } | { action: 'errored', reason }. Pure apart from its history.
function createRestartGuard ({ now }) {
  const history = new Map() // instance id → { crashTimes, unstableRuns, restarts }

  function decide (inst, { spec = inst.spec, uptime, what, cause }) {
    const seen = history.get(inst.id)
    // `xpm reset` sets the instance's counter back: the policy forgets its history too
    const fresh = !seen || inst.restarts < seen.restarts
    const decision = countRestart({
      policy: policyFromSpec(spec),
      uptime,
      times: fresh ? [] : seen.crashTimes,
      unstableRuns: fresh ? 0 : seen.unstableRuns,
      now: now(),
      what,
      extraDelay: 0
    })
    if (decision.action === 'errored') {
      history.delete(inst.id) // what follows is the user's decision: a fresh start
      return { action: 'errored', reason: `${cause}; ${decision.reason}` }
    }
    history.set(inst.id, { crashTimes: decision.crashTimes, unstableRuns: decision.unstableRuns, restarts: inst.restarts })
    return { action: 'restart', delay: decision.delay }
  }

  return {
    decide,
    forget: (id) => history.delete(id),
    prune: (ids) => { for (const id of history.keys()) if (!ids.has(id)) history.delete(id) },
    size: () => history.size
  }
}

module.exports = { createRestartGuard }
