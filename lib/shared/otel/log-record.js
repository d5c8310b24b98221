'use strict'

// One log line of an app → the fields of its OTLP log record. Pure. The severity comes from the
// stream (stdout INFO, stderr ERROR), or from the level of a JSON line: pino's numbers (10 trace
// … 60 fatal) or a name (bunyan, winston, console JSON: "warn", "ERROR"…). A JSON line carrying
// trace_id and span_id (pino's OpenTelemetry instrumentation, the SDK's log bridge, or
// traceId/spanId) gives the record its trace context, so a backend shows it inside its trace.
const SEVERITY = { TRACE: 1, DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 }
const NAMES = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', information: 'INFO', notice: 'INFO', warn: 'WARN', warning: 'WARN', error: 'ERROR', err: 'ERROR', fatal: 'FATAL', critical: 'FATAL', crit: 'FATAL', panic: 'FATAL' }
const PINO = [[60, 'FATAL'], [50, 'ERROR'], [40, 'WARN'], [30, 'INFO'], [20, 'DEBUG'], [10, 'TRACE']]
const TRACE_ID = /^[0-9a-f]{32}$/
const SPAN_ID = /^[0-9a-f]{16}$/
const MAX_JSON = 64 * 1024

function severityOfLevel (level) {
  if (typeof level === 'number') {
    const found = PINO.find(([n]) => level >= n)
    return found ? found[1] : 'TRACE'
  }
  if (typeof level === 'string') return NAMES[level.trim().toLowerCase()] ?? null
  return null
}

// line: the text as written; stream: 'out' or 'err'. → { severityNumber, severityText, body,
// traceId, spanId, traceFlags } (the last three null when the line carries none).
function logRecordOf (line, stream) {
  let text = stream === 'err' ? 'ERROR' : 'INFO'
  let trace = { traceId: null, spanId: null, traceFlags: null }
  const json = parseJson(line)
  if (json) {
    text = severityOfLevel(json.level ?? json.severity ?? json.lvl) ?? text
    const traceId = String(json.trace_id ?? json.traceId ?? '').toLowerCase()
    const spanId = String(json.span_id ?? json.spanId ?? '').toLowerCase()
    if (TRACE_ID.test(traceId) && SPAN_ID.test(spanId) && !/^0+$/.test(traceId)) {
      const flags = Number.parseInt(json.trace_flags ?? json.traceFlags ?? '1', 16)
      trace = { traceId, spanId, traceFlags: Number.isInteger(flags) ? flags & 0xff : 1 }
    }
  }
  return { severityNumber: SEVERITY[text], severityText: text, body: line, ...trace }
}

function parseJson (line) {
  if (typeof line !== 'string' || line.length > MAX_JSON || line[0] !== '{') return null
  try {
    const v = JSON.parse(line)
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null
  } catch {
    return null
  }
}

module.exports = { logRecordOf, severityOfLevel, SEVERITY }
