'use strict'

const path = require('node:path')

const DEFAULT_INTERVAL_MS = 1000
const MIN_INTERVAL_MS = 100

// XPM_METRICS_INTERVAL in ms; anything unusable falls back to the default.
function intervalFrom (env) {
  const value = Number(env.XPM_METRICS_INTERVAL)
  if (!env.XPM_METRICS_INTERVAL || !Number.isFinite(value) || value <= 0) return DEFAULT_INTERVAL_MS
  return Math.max(MIN_INTERVAL_MS, Math.round(value))
}

// Removes `--require <file>` / `-r <file>` / `--require=<file>` from an execArgv array in place.
// child_process.fork() and cluster default a child's execArgv to process.execArgv, so without
// this the app's own forked children would load the agent and send their reports to the app.
function forgetPreload (execArgv, file) {
  for (let i = execArgv.length - 1; i >= 0; i--) {
    const arg = execArgv[i]
    if ((arg === '--require' || arg === '-r') && i + 1 < execArgv.length && path.resolve(execArgv[i + 1]) === file) {
      execArgv.splice(i, 2)
    } else if (arg.startsWith('--require=') && path.resolve(arg.slice('--require='.length)) === file) {
      execArgv.splice(i, 1)
    }
  }
  return execArgv
}

module.exports = { intervalFrom, forgetPreload, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS }
