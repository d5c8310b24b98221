'use strict'

const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')
const { formatMs } = require('../../lib/shared/quantity')

// What to do when a process exits on its own, or a policy (memory limit, watch) wants to restart
// it. Pure: plain values in, a decision out. Both go through the same crash-loop accounting:
//
// - A run shorter than `minUptime` is unstable. More than `maxRestarts` unstable runs in a row
//   mean `errored`, however far apart they are (as in PM2): with the defaults an app that dies at
//   boot is errored after 16 restarts, about 2.5 minutes of backoff.
// - Restarts are also counted over a sliding window (`restartWindow`): more than `maxRestarts`
//   inside it means `errored`, however long each run lasted (PM2 has no such bound, so an app
//   that crashes every few seconds loops forever there).
// - Each consecutive unstable run doubles the delay, from `expBackoffRestartDelay` up to
//   `maxBackoffDelay`; a stable run resets it. `restartDelay` is added to every crash restart.
//
// input:  { policy, exit: { code, signal, uptime }, crashTimes: number[], unstableRuns, now }
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
  return countRestart({ policy, uptime: exit.uptime, times: crashTimes, unstableRuns, now })
}

// The accounting itself. `what` names the restarts in the reason: 'crashes', 'memory restarts'…
// Policy restarts pass `extraDelay: 0`: restart_delay is about crashes.
function countRestart ({ policy, uptime, times = [], unstableRuns = 0, now, what = 'crashes', extraDelay = policy.restartDelay }) {
  const recent = times.filter((t) => t > now - policy.restartWindow)
  recent.push(now)
  const nextUnstable = uptime >= policy.minUptime ? 0 : unstableRuns + 1
  const state = { crashTimes: recent, unstableRuns: nextUnstable }
  const limit = `(max_restarts ${policy.maxRestarts})`
  if (nextUnstable > policy.maxRestarts) {
    return { action: 'errored', reason: `${nextUnstable} ${what} in a row, each less than min_uptime (${formatMs(policy.minUptime)}) after its start ${limit}`, ...state }
  }
  if (recent.length > policy.maxRestarts) {
    return { action: 'errored', reason: `${recent.length} ${what} within ${formatMs(policy.restartWindow)} ${limit}`, ...state }
  }
  return { action: 'restart', delay: extraDelay + backoffDelay(nextUnstable, policy), ...state }
}

function backoffDelay (unstableRuns, { expBackoffRestartDelay, maxBackoffDelay }) {
  if (unstableRuns === 0 || !expBackoffRestartDelay) return 0
  return Math.min(expBackoffRestartDelay * 2 ** (unstableRuns - 1), maxBackoffDelay)
}

// The policy's fields, with the option table's defaults (lib/shared/config/options.js).
const DEFAULT_POLICY = Object.freeze(Object.fromEntries(['autorestart', 'maxRestarts', 'restartWindow', 'minUptime', 'restartDelay',
  'expBackoffRestartDelay', 'maxBackoffDelay', 'stopExitCodes'].map((key) => [key, SPEC_DEFAULTS[key]])))

function policyFromSpec (spec) {
  const policy = {}
  for (const key of Object.keys(DEFAULT_POLICY)) {
    policy[key] = spec[key] ?? DEFAULT_POLICY[key]
  }
  return policy
}

module.exports = { decideRestart, countRestart, backoffDelay, policyFromSpec, DEFAULT_POLICY }
