'use strict'

// The `otel` option's forms (docs/otel.md), kept apart from types.js as the health forms are.
// Pure. In a file or a flag: true (traces, metrics and logs, to the endpoint the OTEL_*
// variables name), false, an endpoint URL (`--otel http://collector:4318`), or an object
// { traces, metrics, logs, endpoint, protocol, headers, sampler }. Normalized: null (off) or an
// object with every field, null where the OTEL_* variables decide.
const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc']
const SIGNALS = ['traces', 'metrics', 'logs']
const KEYS = new Set([...SIGNALS, 'endpoint', 'protocol', 'headers', 'sampler'])
// OTEL_TRACES_SAMPLER's values (the OpenTelemetry environment specification)
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']

const OTEL_EXPECTED = 'true, false, an http(s) endpoint URL, or { traces, metrics, logs, endpoint, protocol, headers, sampler } ' +
  `(protocol: ${PROTOCOLS.join(', ')}; headers: an object of strings or "k=v,k2=v2"; ` +
  `sampler: a ratio from 0 to 1 or one of ${SAMPLERS.join(', ')}, optionally "name:arg")`

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(v))
const isUrl = (v) => {
  if (typeof v !== 'string' || v.length > 2048) return false
  try { return ['http:', 'https:'].includes(new URL(v).protocol) } catch { return false }
}
const isHeaderName = (k) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/.test(k)
const isHeaderValue = (v) => typeof v === 'string' && v.length <= 8192 && !/[\0\r\n]/.test(v)

// { name: value } from an object or OTEL_EXPORTER_OTLP_HEADERS' "k=v,k2=v2" (values URL-encoded).
function parseHeaders (v) {
  if (v === undefined || v === null) return null
  let pairs
  if (typeof v === 'string') {
    pairs = []
    for (const part of v.split(',')) {
      if (part.trim() === '') continue
      const at = part.indexOf('=')
      if (at < 1) return undefined
      let value
      try { value = decodeURIComponent(part.slice(at + 1).trim()) } catch { return undefined }
      pairs.push([part.slice(0, at).trim(), value])
    }
  } else if (isObject(v)) {
    pairs = Object.entries(v)
  } else {
    return undefined
  }
  if (pairs.length > 64 || !pairs.every(([k, value]) => isHeaderName(k) && isHeaderValue(value))) return undefined
  return Object.fromEntries(pairs)
}

// A ratio (0.25), "traceidratio:0.25" or a sampler name → { sampler, arg } or undefined.
function parseSampler (v) {
  if (v === undefined || v === null) return null
  if (typeof v === 'number') return v >= 0 && v <= 1 ? { sampler: 'parentbased_traceidratio', arg: String(v) } : undefined
  if (typeof v !== 'string') return undefined
  const [name, arg, extra] = v.split(':')
  if (extra !== undefined || !SAMPLERS.includes(name)) return undefined
  if (arg === undefined) return { sampler: name, arg: null }
  const ratio = Number(arg)
  return name.endsWith('traceidratio') && arg.trim() !== '' && ratio >= 0 && ratio <= 1 ? { sampler: name, arg } : undefined
}

// File or flag value → normalized value, or null when it is not one of the forms.
function parseOtel (v) {
  if (v === false) return { off: true }
  if (v === true) return normalized({})
  if (isUrl(v)) return normalized({ endpoint: v })
  if (!isObject(v) || !Object.keys(v).every((k) => KEYS.has(k))) return null
  return normalized(v)
}

function normalized (v) {
  for (const s of SIGNALS) if (v[s] !== undefined && typeof v[s] !== 'boolean') return null
  if (v.endpoint !== undefined && v.endpoint !== null && !isUrl(v.endpoint)) return null
  if (v.protocol !== undefined && v.protocol !== null && !PROTOCOLS.includes(v.protocol)) return null
  const headers = parseHeaders(v.headers)
  const sampler = parseSampler(v.sampler)
  if (headers === undefined || sampler === undefined) return null
  const out = { traces: v.traces ?? true, metrics: v.metrics ?? true, logs: v.logs ?? true, endpoint: v.endpoint ?? null, protocol: v.protocol ?? null, headers, sampler }
  return SIGNALS.some((s) => out[s]) ? out : { off: true }
}

// The normalized form, as the daemon receives it.
function isOtel (v) {
  return isObject(v) && SIGNALS.every((s) => typeof v[s] === 'boolean') &&
    (v.endpoint === null || isUrl(v.endpoint)) && (v.protocol === null || PROTOCOLS.includes(v.protocol)) &&
    (v.headers === null || (isObject(v.headers) && parseHeaders(v.headers) !== undefined)) &&
    (v.sampler === null || (isObject(v.sampler) && SAMPLERS.includes(v.sampler.sampler) && (v.sampler.arg === null || typeof v.sampler.arg === 'string')))
}

module.exports = { parseOtel, isOtel, parseHeaders, OTEL_EXPECTED, PROTOCOLS, SAMPLERS }
