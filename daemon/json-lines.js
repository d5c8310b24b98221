'use strict'

// The daemon's structured log lines, in pino's format (what daemon.log has always held, so
// `jq` filters and log shippers keep working): one JSON object a line, `level` as a number
// (pino's: debug 20, info 30, warn 40, error 50), `time` in ISO 8601, the event's own fields,
// then `msg`. An `err` that is an Error becomes { type, message, stack, …its own fields },
// its causes appended to message and stack as pino does.
//
// Not pino itself: the daemon writes a few lines a minute to one stream, and pino with its
// helpers (sonic-boom, thread-stream and the worker_threads it loads, redaction, serializers)
// held 2 MB of the daemon's memory at rest (bench/findings.md, "Memory").
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

function createJsonLogger ({ level = 'info', write, now = () => new Date() }) {
  const threshold = LEVELS[level]
  if (threshold === undefined) throw new TypeError(`unknown log level ${JSON.stringify(level)}`)
  const logger = { level }
  for (const [name, value] of Object.entries(LEVELS)) {
    logger[name] = value < threshold
      ? () => {}
      : (fields, msg) => write(formatLine(value, now(), fields, msg))
  }
  return logger
}

// (fields, msg), (msg) or (err, msg), as pino takes them.
function formatLine (level, time, fields, msg) {
  if (typeof fields === 'string' && msg === undefined) [fields, msg] = [null, fields]
  if (fields instanceof Error) fields = { err: fields }
  const entry = { level, time: time.toISOString() }
  if (fields && typeof fields === 'object') {
    for (const key of Object.keys(fields)) {
      if (key !== 'level' && key !== 'time') entry[key] = fields[key]
    }
    if (fields.err instanceof Error) entry.err = serializeError(fields.err)
  }
  if (msg !== undefined) entry.msg = String(msg)
  return stringify(entry) + '\n'
}

function serializeError (err) {
  const out = { type: err.constructor?.name || 'Error', message: withCauses(err, (e) => e.message, ': '), stack: withCauses(err, (e) => e.stack, '\ncaused by: ') }
  for (const key of Object.keys(err)) {
    if (key === 'cause' || key in out) continue
    out[key] = err[key] instanceof Error ? serializeError(err[key]) : err[key]
  }
  return out
}

function withCauses (err, part, joiner) {
  const parts = []
  const seen = new Set()
  for (let e = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e)
    parts.push(String(part(e) ?? ''))
  }
  return parts.join(joiner)
}

// JSON.stringify that never throws: a value seen again on its own path is "[Circular]", a
// BigInt its decimal digits (a log call must not fail the code that makes it).
function stringify (value) {
  try {
    return JSON.stringify(value)
  } catch {
    const path = []
    return JSON.stringify(value, function (key, v) {
      while (path.length && path[path.length - 1] !== this) path.pop()
      if (typeof v === 'bigint') return v.toString()
      if (v && typeof v === 'object') {
        if (path.includes(v)) return '[Circular]'
        path.push(v)
      }
      return v
    })
  }
}

module.exports = { createJsonLogger, formatLine, LEVELS }
