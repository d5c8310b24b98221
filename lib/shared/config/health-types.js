'use strict'

const { parseDuration } = require('../units')
const { MAX_TIMER_MS, MAX_PATH_BYTES } = require('./limits')

// The value types of the health options (readiness, liveness, on_event), kept apart from
// types.js so the probe and hook forms live in one place: the file and flag forms (parse), the
// normalized form the daemon checks (isProbe, isHooks) and the defaults docs/health.md gives.
// Pure. parse() returns the normalized value or INVALID (types.js names the app and key).

// Kubernetes' defaults (periodSeconds 10, timeoutSeconds 1, failureThreshold 3,
// successThreshold 1, initialDelaySeconds 0).
const PROBE_DEFAULTS = Object.freeze({ interval: 10000, timeout: 1000, failureThreshold: 3, successThreshold: 1, initialDelay: 0 })
const PROBE_LIMITS = Object.freeze({ minInterval: 100, minTimeout: 10, maxThreshold: 1000 })
const PROBE_KINDS = ['http', 'https', 'tcp', 'exec']
const PROBE_KEYS = new Set([...PROBE_KINDS, 'port', 'interval', 'timeout', 'failure_threshold', 'success_threshold', 'initial_delay'])

const HOOK_EVENTS = ['crash', 'errored', 'restart', 'reload_failed']
const HOOK_DEFAULT_TIMEOUT = 10000
const HOOK_MAX_TIMEOUT = 600000
const MAX_HOOK_COMMANDS = 16

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(v))
const isCommand = (v) => typeof v === 'string' && v.trim() !== '' && !v.includes('\0') && Buffer.byteLength(v) <= MAX_PATH_BYTES
const isPort = (v) => Number.isInteger(v) && v >= 1 && v <= 65535
const isHttpPath = (v) => typeof v === 'string' && v.startsWith('/') && v.length <= 2048 && !/[\s\0]/.test(v)

function portOf (v) {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v
  return isPort(n) ? n : null
}

function durationOf (v, min, fallback) {
  if (v === undefined) return fallback
  let ms
  try { ms = parseDuration(v) } catch { return null }
  return ms >= min && ms <= MAX_TIMER_MS ? ms : null
}

function countOf (v, fallback) {
  if (v === undefined) return fallback
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v
  return Number.isInteger(n) && n >= 1 && n <= PROBE_LIMITS.maxThreshold ? n : null
}

// The short forms: 'http:/healthz', 'http:3000/healthz', 'https:/healthz', 'https:3000/healthz',
// 'tcp:3000', 'exec:node check.js', and a
// JSON object (for a flag: --readiness '{"http":"/healthz","interval":"2s"}').
function probeFromString (text) {
  const s = text.trim()
  if (s.startsWith('{')) {
    try { return JSON.parse(s) } catch { return null }
  }
  let m = /^(https?):(\d+)?(\/\S*)$/.exec(s)
  if (m) return m[2] ? { [m[1]]: m[3], port: Number(m[2]) } : { [m[1]]: m[3] }
  m = /^tcp:(\d+)$/.exec(s)
  if (m) return { tcp: Number(m[1]) }
  m = /^exec:(.+)$/s.exec(s)
  if (m) return { exec: m[1].trim() }
  return null
}

// File or flag value → normalized probe, or null when it is not one.
// { kind: 'http' | 'https', path, port|null } | { kind: 'tcp', port } | { kind: 'exec', command },
// each with interval, timeout, failureThreshold, successThreshold, initialDelay (ms / counts).
function parseProbe (value) {
  const raw = typeof value === 'string' ? probeFromString(value) : value
  if (!isObject(raw)) return null
  const keys = Object.keys(raw)
  if (keys.some((k) => !PROBE_KEYS.has(k))) return null
  const kinds = PROBE_KINDS.filter((k) => raw[k] !== undefined)
  if (kinds.length !== 1) return null
  const kind = kinds[0]
  let target
  if (kind === 'http' || kind === 'https') {
    const port = raw.port === undefined ? null : portOf(raw.port)
    if (!isHttpPath(raw[kind]) || (raw.port !== undefined && port === null)) return null
    target = { kind, path: raw[kind], port }
  } else if (kind === 'tcp') {
    const port = portOf(raw.tcp)
    if (port === null || raw.port !== undefined) return null
    target = { kind, port }
  } else {
    if (!isCommand(raw.exec) || raw.port !== undefined) return null
    target = { kind, command: raw.exec.trim() }
  }
  const probe = {
    ...target,
    interval: durationOf(raw.interval, PROBE_LIMITS.minInterval, PROBE_DEFAULTS.interval),
    timeout: durationOf(raw.timeout, PROBE_LIMITS.minTimeout, PROBE_DEFAULTS.timeout),
    failureThreshold: countOf(raw.failure_threshold, PROBE_DEFAULTS.failureThreshold),
    successThreshold: countOf(raw.success_threshold, PROBE_DEFAULTS.successThreshold),
    initialDelay: durationOf(raw.initial_delay, 0, PROBE_DEFAULTS.initialDelay)
  }
  const timings = [probe.interval, probe.timeout, probe.failureThreshold, probe.successThreshold, probe.initialDelay]
  return timings.includes(null) ? null : probe
}

// The daemon's check of a normalized probe (from the socket or a saved state).
function isProbe (p) {
  if (!isObject(p)) return false
  const common = Number.isSafeInteger(p.interval) && p.interval >= PROBE_LIMITS.minInterval && p.interval <= MAX_TIMER_MS &&
    Number.isSafeInteger(p.timeout) && p.timeout >= PROBE_LIMITS.minTimeout && p.timeout <= MAX_TIMER_MS &&
    Number.isSafeInteger(p.initialDelay) && p.initialDelay >= 0 && p.initialDelay <= MAX_TIMER_MS &&
    [p.failureThreshold, p.successThreshold].every((n) => Number.isInteger(n) && n >= 1 && n <= PROBE_LIMITS.maxThreshold)
  if (!common) return false
  if (p.kind === 'http' || p.kind === 'https') return isHttpPath(p.path) && (p.port === null || isPort(p.port))
  if (p.kind === 'tcp') return isPort(p.port)
  if (p.kind === 'exec') return isCommand(p.command)
  return false
}

// How a probe reads in messages and reasons: 'GET /healthz', 'GET :3000/healthz',
// 'GET https :3000/healthz', 'tcp :3000', 'exec "node check.js"'.
function describeProbe (p) {
  if (p.kind === 'http') return `GET ${p.port ? `:${p.port}` : ''}${p.path}`
  if (p.kind === 'https') return `GET https ${p.port ? `:${p.port}` : ''}${p.path}`
  if (p.kind === 'tcp') return `tcp :${p.port}`
  const cmd = p.command.length > 60 ? p.command.slice(0, 57) + '...' : p.command
  return `exec "${cmd}"`
}

// on_event: one command for every event ('node notify.js'), a list of them, or an object whose
// keys are events (several at once: 'crash,errored') and whose values are a command or a list,
// plus an optional `timeout`. → { timeout, commands: [{ events: [...], command }] } or null.
function parseHooks (value) {
  let timeout = HOOK_DEFAULT_TIMEOUT
  const commands = []
  const add = (events, cmds) => {
    const list = Array.isArray(cmds) ? cmds : [cmds]
    if (!list.length || !list.every(isCommand)) return false
    for (const command of list) commands.push({ events, command: command.trim() })
    return true
  }
  if (typeof value === 'string' || Array.isArray(value)) {
    if (!add([...HOOK_EVENTS], value)) return null
  } else if (isObject(value)) {
    for (const [key, cmds] of Object.entries(value)) {
      if (key === 'timeout') {
        try { timeout = parseDuration(cmds) } catch { return null }
        if (timeout < 100 || timeout > HOOK_MAX_TIMEOUT) return null
        continue
      }
      const events = key.split(',').map((e) => e.trim())
      if (!events.length || !events.every((e) => HOOK_EVENTS.includes(e)) || new Set(events).size !== events.length) return null
      if (!add(events, cmds)) return null
    }
  } else {
    return null
  }
  if (!commands.length || commands.length > MAX_HOOK_COMMANDS) return null
  return { timeout, commands }
}

function isHooks (h) {
  return isObject(h) && Number.isSafeInteger(h.timeout) && h.timeout >= 100 && h.timeout <= HOOK_MAX_TIMEOUT &&
    Array.isArray(h.commands) && h.commands.length >= 1 && h.commands.length <= MAX_HOOK_COMMANDS &&
    h.commands.every((c) => isObject(c) && isCommand(c.command) && Array.isArray(c.events) && c.events.length >= 1 &&
      c.events.every((e) => HOOK_EVENTS.includes(e)))
}

const PROBE_EXPECTED = 'a probe: { http: "/healthz", port? }, { https: "/healthz", port? }, { tcp: 3000 } or { exec: "node check.js" } (or "http:/healthz", "https:/healthz", "tcp:3000", "exec:<command>"), ' +
  'with optional interval, timeout, failure_threshold, success_threshold, initial_delay'
const HOOKS_EXPECTED = `a command, a list of commands, or an object of events (${HOOK_EVENTS.join(', ')}; several as "crash,errored") to commands, with an optional timeout (at most 10m)`

module.exports = {
  parseProbe,
  isProbe,
  describeProbe,
  parseHooks,
  isHooks,
  PROBE_DEFAULTS,
  PROBE_LIMITS,
  PROBE_EXPECTED,
  HOOK_EVENTS,
  HOOK_DEFAULT_TIMEOUT,
  HOOKS_EXPECTED
}
