'use strict'

const EXEC_MODES = { cluster: 'cluster', cluster_mode: 'cluster', fork: 'fork', fork_mode: 'fork' }
const os = require('node:os')
const { parseBytes, parseDuration, formatBytes, formatDuration } = require('../units')
const { MAX_TIMER_MS, MAX_INSTANCES, GiB } = require('./limits')

const DEV_NULL = '/dev/null'
const health = require('./health-types')
const otel = require('./otel-type')

// Value types of app options. parse() returns the parsed value or INVALID; the caller names the
// app and key in the error, so every message reads the same way. CLI flags arrive as strings,
// so counts and lists also accept their string forms (bare-number durations and sizes are
// turned into numbers for flags only, in validate.js: in a file '5000' is ambiguous).
const {
  INVALID, isDigits, isPlainObject, attempt, splitArgs, list, noNul, allStrings, isText, NAME_RULE, nameProblem,
  specText, specAbs, specStrings, specInt, ENV_VAR, MAX_ID
} = require('./value-checks')

// Every type: expected (what a message says it should be), parse (file or flag value → parsed
// value or INVALID), spec ([check of the normalized value, what it should be]), and for numbers
// format and range. A string of digits is a number for every numeric type, as PM2 reads it.
const TYPES = {
  string: {
    expected: 'a non-empty string',
    parse: (v) => isText(v) ? v : INVALID,
    spec: [specText, 'a non-empty string']
  },
  name: {
    expected: NAME_RULE,
    parse: (v) => nameProblem(v) ? INVALID : v,
    spec: [(v) => nameProblem(v) === null, NAME_RULE]
  },
  path: {
    expected: 'a path (a non-empty string)',
    parse: (v) => isText(v) ? v : INVALID,
    spec: [specAbs, 'an absolute path']
  },
  // out_file, error_file: PM2's "NULL" and "/dev/null" (and false) mean no file.
  logPath: {
    expected: 'a path, or "/dev/null" or "NULL" for no file',
    parse: (v) => v === false || v === 'NULL' || v === DEV_NULL ? DEV_NULL : isText(v) ? v : INVALID,
    spec: [specAbs, 'an absolute path']
  },
  boolean: {
    expected: 'true or false',
    parse: (v) => typeof v === 'boolean' ? v : INVALID,
    spec: [(v) => typeof v === 'boolean', 'true or false']
  },
  count: {
    expected: 'a whole number (0 or more)',
    range: { min: 0, max: Number.MAX_SAFE_INTEGER },
    parse: (v) => {
      const n = isDigits(v) ? Number(v) : v
      return Number.isSafeInteger(n) && n >= 0 ? n : INVALID
    },
    spec: [specInt, 'a whole number']
  },
  duration: {
    expected: 'a duration like "200ms", "5s", "2m", "1h" or a number of milliseconds',
    parse: (v) => attempt(() => parseDuration(isDigits(v) ? Number(v) : v)),
    format: formatDuration,
    range: { min: 0, max: MAX_TIMER_MS, note: ' (a longer delay does not fit a timer)' },
    spec: [specInt, 'a whole number of milliseconds']
  },
  bytes: {
    expected: 'a size like "300K", "10M", "1G" or a number of bytes',
    parse: (v) => attempt(() => parseBytes(isDigits(v) ? Number(v) : v)),
    format: formatBytes,
    range: { min: 0, max: 1024 * GiB },
    spec: [specInt, 'a whole number of bytes']
  },
  args: {
    expected: 'a string or an array of strings',
    parse: (v) => {
      let args = INVALID
      if (typeof v === 'string') args = splitArgs(v)
      else if (Array.isArray(v) && v.every((a) => typeof a === 'string' || Number.isFinite(a))) args = v.map(String)
      return args !== INVALID && args.every(noNul) ? args : INVALID
    },
    spec: [(v) => specStrings(v), 'an array of strings']
  },
  list: {
    expected: 'a comma-separated string or an array of strings',
    parse: (v) => { const a = list(v); return allStrings(a) ? a : INVALID },
    spec: [(v) => specStrings(v, true), 'an array of non-empty strings']
  },
  exitCodes: {
    expected: 'an exit code or an array of exit codes (0-255)',
    parse: (v) => {
      const a = (Array.isArray(v) ? v : list(typeof v === 'number' ? String(v) : v))
      if (!Array.isArray(a)) return INVALID
      const codes = a.map((c) => isDigits(c) ? Number(c) : c)
      return codes.every((c) => Number.isInteger(c) && c >= 0 && c <= 255) ? codes : INVALID
    },
    spec: [(v) => Array.isArray(v) && v.length <= 256 && v.every((c) => specInt(c) && c >= 0 && c <= 255), 'an array of exit codes (0-255)']
  },
  instances: {
    expected: 'a number, "max" or a negative number',
    range: { min: -MAX_INSTANCES, max: MAX_INSTANCES },
    // Resolved to a count later (normalize.js), where the CPU count is known.
    parse: (v) => {
      if (v === 'max') return 'max'
      const n = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v
      return Number.isSafeInteger(n) ? n : INVALID
    },
    spec: [(v) => specInt(v) && v >= 1 && v <= MAX_INSTANCES, `a whole number from 1 to ${MAX_INSTANCES}`]
  },
  execMode: {
    expected: '"cluster" or "fork"',
    parse: (v) => (typeof v === 'string' && Object.hasOwn(EXEC_MODES, v) ? EXEC_MODES[v] : INVALID),
    spec: [(v) => v === 'cluster' || v === 'fork', '"cluster" or "fork"']
  },
  logType: {
    expected: '"raw" or "json"',
    parse: (v) => v === 'raw' || v === 'json' ? v : INVALID,
    spec: [(v) => typeof v === 'boolean', 'true or false (json lines)']
  },
  signal: {
    expected: 'a signal name such as "SIGINT" or "SIGTERM"',
    parse: (v) => {
      if (typeof v !== 'string') return INVALID
      const name = v.toUpperCase().startsWith('SIG') ? v.toUpperCase() : 'SIG' + v.toUpperCase()
      return name in os.constants.signals ? name : INVALID
    },
    spec: [(v) => typeof v === 'string' && TYPES.signal.parse(v) === v, 'a signal name such as "SIGINT"']
  },
  // Values that are objects or arrays are passed as their JSON text (an environment holds strings).
  env: {
    expected: 'an object of strings, numbers, booleans or JSON values',
    parse: (v) => {
      if (!isPlainObject(v)) return INVALID
      const out = {}
      for (const [k, val] of Object.entries(v)) {
        if (val === null || val === undefined) continue
        if (!noNul(k) || k === '') return INVALID
        if (['string', 'number', 'boolean'].includes(typeof val)) out[k] = String(val)
        else if (typeof val === 'object') out[k] = attempt(() => JSON.stringify(val))
        else return INVALID
        if (!noNul(out[k])) return INVALID
      }
      return out
    },
    spec: [(v) => isPlainObject(v) && Object.entries(v).every(([k, s]) => noNul(k) && noNul(s)), 'an object of strings']
  },
  envName: {
    expected: 'an environment variable name (any text without "=" or a NUL byte)',
    parse: (v) => typeof v === 'string' && ENV_VAR.test(v) ? v : INVALID,
    spec: [(v) => typeof v === 'string' && ENV_VAR.test(v), 'an environment variable name']
  },
  // true: <XPM_HOME>/logs/<name>.log; false, "NULL" and "/dev/null": none.
  logFile: {
    expected: 'a path or true (true: <XPM_HOME>/logs/<name>.log)',
    parse: (v) => v === true || v === false ? v : v === 'NULL' || v === DEV_NULL ? false : TYPES.path.parse(v),
    spec: [specAbs, 'an absolute path']
  },
  // PM2 files write log_date_format: false for "no format".
  dateFormat: {
    expected: 'a date format such as "YYYY-MM-DD HH:mm:ss", or false',
    parse: (v) => v === false ? null : isText(v) ? v : INVALID,
    spec: [specText, 'a non-empty string']
  },
  watch: {
    expected: 'true, false, a path or an array of paths',
    parse: (v) => typeof v === 'boolean' ? v : TYPES.list.parse(v),
    spec: [(v) => v === false || (Array.isArray(v) && v.length > 0 && v.every(specAbs)), 'false or a non-empty array of absolute paths']
  },
  cron: {
    expected: 'a cron expression that fires, such as "0 3 * * *"',
    // croner parses it as the daemon will schedule it; one that never fires (Feb 30) is refused
    parse: (v) => {
      if (typeof v !== 'string' || v.trim() === '' || v.length > 256) return INVALID
      const { Cron } = require('croner')
      return attempt(() => {
        const job = new Cron(v, { paused: true })
        const next = job.nextRun()
        job.stop()
        return next ? v.trim() : INVALID
      })
    },
    spec: [(v) => TYPES.cron.parse(v) !== INVALID, 'a cron expression that fires, such as "0 3 * * *"']
  },
  // filter_env: true (none of the CLI's environment), or prefixes of the variables to leave out.
  filterEnv: {
    expected: 'true, false, a variable name prefix or an array of them',
    parse: (v) => typeof v === 'boolean' ? v : TYPES.list.parse(v),
    spec: [(v) => typeof v === 'boolean' || specStrings(v, true), 'true, false or an array of prefixes']
  },
  // uid, gid: a number, or a user or group name (resolved by normalize.js from /etc/passwd, /etc/group).
  userId: {
    expected: 'a user or group id (a number) or name',
    range: { min: 0, max: MAX_ID },
    parse: (v) => {
      const n = isDigits(v) ? Number(v) : v
      if (Number.isSafeInteger(n)) return n
      return typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_.-]{0,63}\$?$/.test(v) ? v : INVALID
    },
    spec: [(v) => specInt(v), 'a whole number (a user or group id)']
  },
  port: {
    expected: 'a port number (1-65535)',
    range: { min: 1, max: 65535 },
    parse: (v) => {
      const n = isDigits(v) ? Number(v) : v
      return Number.isSafeInteger(n) ? n : INVALID
    },
    spec: [specInt, 'a port number']
  },
  object: {
    expected: 'an object',
    parse: (v) => isPlainObject(v) ? v : INVALID,
    spec: [isPlainObject, 'an object']
  },
  // Health options (docs/health.md): their forms live in health-types.js.
  probe: {
    expected: health.PROBE_EXPECTED,
    parse: (v) => health.parseProbe(v) ?? INVALID,
    spec: [health.isProbe, 'a normalized probe ({ kind, path|port|command, interval, timeout, ... })']
  },
  hooks: {
    expected: health.HOOKS_EXPECTED,
    parse: (v) => health.parseHooks(v) ?? INVALID,
    spec: [health.isHooks, 'normalized hooks ({ timeout, commands: [{ events, command }] })']
  },
  // otel (docs/otel.md): its forms live in otel-type.js; false is null (off).
  otel: {
    expected: otel.OTEL_EXPECTED,
    parse: (v) => {
      const parsed = otel.parseOtel(v)
      return parsed === null ? INVALID : parsed.off ? null : parsed
    },
    spec: [otel.isOtel, 'normalized otel settings ({ traces, metrics, logs, endpoint, protocol, headers, sampler })']
  },
  // A PM2 key xpm accepts without acting on it (options.js says why, once).
  any: {
    expected: 'any value',
    parse: (v) => v,
    spec: [() => true, 'any value']
  }
}

// The few options that may be null (off) accept null explicitly.
function parseValue (type, value, { nullable = false } = {}) {
  if (value === null && nullable) return null
  return TYPES[type].parse(value)
}

// The bounds of an option's numbers: its own min/max (options.js), else its type's.
function rangeOf (option) {
  const range = TYPES[option.type].range
  if (!range && option.min === undefined && option.max === undefined) return null
  return { min: option.min ?? range?.min ?? -Infinity, max: option.max ?? range?.max ?? Infinity, note: option.max === undefined ? range?.note ?? '' : '' }
}

// For a parsed value: null when it is within the option's bounds, else what it should be
// ('at most 24d (…)', 'at least 1M'). Values that are not numbers ('max', null) have no bounds.
function outOfRange (option, value) {
  if (typeof value !== 'number') return null
  const range = rangeOf(option)
  if (!range) return null
  const format = TYPES[option.type].format ?? String
  if (value > range.max) return `at most ${format(range.max)}${range.note}`
  if (value < range.min) return `at least ${format(range.min)}`
  return null
}

module.exports = { TYPES, INVALID, DEV_NULL, parseValue, rangeOf, outOfRange, nameProblem, splitArgs, isPlainObject, noNul }
