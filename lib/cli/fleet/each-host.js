'use strict'

// Running a command against each host, and saying how each did: shared by the fleet commands
// (run.js, list.js, logs.js, rollout.js).
const { XpmError, exitCodeFor } = require('../../shared/errors')
const { hostIo, hostCtx } = require('./host-io')

// Runs the command's own action against one host. Resolves { label, code, error, out, err }.
async function runOne (entry, action, ctx, rest, { live = false } = {}) {
  const { label } = entry
  if (!entry.client) return { label, code: 1, error: entry.error, out: [], err: [] }
  const h = hostIo(ctx.io, label, entry.client, { live })
  let code
  let error = null
  try {
    code = await action(hostCtx(ctx, h.io, entry.client), ...rest)
    if (typeof code !== 'number') code = h.io.exitCode ?? 0
  } catch (err) {
    error = entry.error || err // the connection dropped: say so, not "the daemon closed"
    code = exitCodeFor(error)
  }
  h.flush()
  return { label, code, error, out: h.out, err: h.err }
}

// A host's part of a --json answer: what it printed (parsed), or why it failed.
function jsonOf (r) {
  if (r.error) return { host: r.label, ok: false, error: wireError(r.error) }
  const text = r.out.join('\n').trim()
  let result = text
  try {
    result = text ? JSON.parse(text) : null
  } catch {
    try { result = r.out.filter((l) => l.trim()).map((l) => JSON.parse(l)) } catch {}
  }
  return { host: r.label, ok: r.code === 0, result, ...(r.code !== 0 ? { exitCode: r.code, stderr: r.err } : {}) }
}

const wireError = (err) => (err instanceof XpmError ? err.toJSON() : { code: 'XPM_ERR_INTERNAL', message: String(err?.message ?? err) })

// The failed hosts named on stderr, one line each; the exit status: 0, or the one status all
// failed hosts share (2: bad arguments everywhere), else 1.
function summarize (results, io) {
  const failed = results.filter((r) => r.error || r.code !== 0)
  for (const r of failed) {
    if (!r.error || r.said) continue // said: already printed when it happened
    const message = String(r.error.message).startsWith(`${r.label}:`) ? r.error.message : `${r.label}: ${r.error.message}`
    io.printError({ code: r.error.code, message })
  }
  if (!failed.length) return 0
  if (failed.length < results.length) {
    io.stderr.write(`xpm: ${failed.length} of ${results.length} hosts failed: ${failed.map((r) => r.label).join(', ')}\n`)
  }
  const codes = new Set(failed.map((r) => r.code))
  return codes.size === 1 ? [...codes][0] || 1 : 1
}

module.exports = { runOne, summarize, jsonOf, wireError }
