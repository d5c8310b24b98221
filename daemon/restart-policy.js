'use strict'

// What to do when a process exits on its own. Pure: plain values in, a decision out.
//
// - Crashes are counted over a sliding window (`restartWindow`): more than `maxRestarts` crashes
//   inside it means `errored`, however long each run lasted before (PM2 only counts runs shorter
//   than min_uptime, so an app that crashes every few seconds loops forever there).
// - A run shorter than `minUptime` is unstable: the delay doubles for each consecutive unstable
//   run, from `expBackoffRestartDelay` up to `maxBackoffDelay`. A stable run resets the backoff.
// - `restartDelay` is added to every restart.
//
// input:  { policy, exit: { code, signal, uptime }, crashTimes: number[], unstableRuns, now, reason }
// output: { action: 'restart', delay, crashTimes, unstableRuns }
//       | { action: 'errored', reason, crashTimes, unstableRuns }
//       | { action: 'stopped', reason }
function decideRestart ({ policy, exit, crashTimes = [], unstableRuns = 0, now }) {
  if (exit.code !== null && exit.code !== undefined && policy.stopExitCodes.includes(exit.code)) {
    return { action: 'stopped', reason: `exit code ${exit.code} is in stop_exit_codes` }
  }
  if (!policy.autorestart) {
    return { action: 'stopped', reason: 'autorestart is off' }
  }

  const windowStart = now - policy.restartWindow
  const recent = crashTimes.filter((t) => t > windowStart)
  recent.push(now)

  const stable = exit.uptime >= policy.minUptime
  const nextUnstable = stable ? 0 : unstableRuns + 1

  if (recent.length > policy.maxRestarts) {
    return {
      action: 'errored',
      reason: `${recent.length} crashes within ${formatMs(policy.restartWindow)} (max_restarts ${policy.maxRestarts})`,
      crashTimes: recent,
      unstableRuns: nextUnstable
    }
  }

  return {
    action: 'restart',
    delay: policy.restartDelay + backoffDelay(nextUnstable, policy),
    crashTimes: recent,
    unstableRuns: nextUnstable
  }
}

function backoffDelay (unstableRuns, { expBackoffRestartDelay, maxBackoffDelay }) {
  if (unstableRuns === 0 || !expBackoffRestartDelay) return 0
  return Math.min(expBackoffRestartDelay * 2 ** (unstableRuns - 1), maxBackoffDelay)
}

function formatMs (ms) {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

const DEFAULT_POLICY = Object.freeze({
  autorestart: true,
  maxRestarts: 16,
  restartWindow: 60000,
  minUptime: 1000,
  restartDelay: 0,
  expBackoffRestartDelay: 100,
  maxBackoffDelay: 15000,
  stopExitCodes: []
})

function policyFromSpec (spec) {
  const policy = {}
  for (const key of Object.keys(DEFAULT_POLICY)) {
    policy[key] = spec[key] ?? DEFAULT_POLICY[key]
  }
  return policy
}

module.exports = { decideRestart, backoffDelay, policyFromSpec, DEFAULT_POLICY }
