'use strict'

const { SPEC_DEFAULTS } = require('../lib/shared/config/spec-defaults')

// How the supervisor's commands shape their replies and first progress event.

// The first progress event of a long command: how long it should take. Apps run in parallel,
// so it is the longest of their own waits (kill_timeout when stopping, listen_timeout when
// starting), never their sum. The CLI sets its deadline from it.
// depth: the longest depends_on chain (its apps start one after another).
function announce (onProgress, specs, { stop, start, depth = 1 }) {
  if (!onProgress) return
  const longest = (key, fallback) => Math.max(0, ...specs.map((s) => s[key] ?? fallback))
  const expectMs = (stop ? longest('killTimeout', SPEC_DEFAULTS.killTimeout) + 5000 : 0) + (start ? longest('listenTimeout', SPEC_DEFAULTS.listenTimeout) * depth : 0)
  onProgress({ type: 'begin', expectMs })
}

// The start of an app with autostart: false says it was registered, not started (one that
// runs is restarted, or refused, as without it: its action says so).
function registered (spec, result) {
  return spec.autostart === false && result.action === 'started' ? { ...result, action: 'registered, not started (autostart: false)' } : result
}

// Per-app results of one command → one reply: arrays concatenated in id order.
function merge (results, keys) {
  const out = {}
  for (const key of keys) out[key] = results.flatMap((r) => r[key] ?? [])
  return out
}

// An app held back by a failed dependency, whose restart waited for it again in vain: a failure
// of that app in the reply, as a start's (the other apps' results stand).
function heldBack (instances) {
  return (err) => {
    if (err.code !== 'XPM_ERR_DEPENDENCY_FAILED') throw err
    return { ids: instances.map((i) => i.id), failures: [{ id: null, instance: null, code: err.code, message: err.message }] }
  }
}

module.exports = { announce, registered, merge, heldBack }
