'use strict'

const os = require('node:os')
const { parseBytes, parseDuration, formatBytes, formatDuration } = require('../units')

// Value types of app options. parse() returns the parsed value or INVALID; the caller names the
// app and key in the error, so every message reads the same way. CLI flags arrive as strings,
// so counts and lists also accept their string forms (bare-number durations and sizes are
// turned into numbers for flags only, in validate.js: in a file '5000' is ambiguous).
const INVALID = Symbol('invalid')

const isDigits = (v) => typeof v === 'string' && /^\s*\d+\s*$/.test(v)
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(v))

function attempt (fn) {
  try { return fn() } catch { return INVALID }
}

// Splits a command line the way a shell would for plain words and quotes (no expansion).
function splitArgs (text) {
  const out = []
  let current = null
  let quote = null
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quote) {
      if (c === quote) quote = null
      else if (c === '\\' && quote === '"' && i + 1 < text.length) current += text[++i]
      else current += c
    } else if (c === '"' || c === "'") {
      quote = c
      current ??= ''
    } else if (/\s/.test(c)) {
      if (current !== null) out.push(current)
      current = null
    } else if (c === '\\' && i + 1 < text.length) {
      current = (current ?? '') + text[++i]
    } else {
      current = (current ?? '') + c
    }
  }
  if (quote) return INVALID
  if (current !== null) out.push(current)
  return out
}

const list = (v) => typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v
const allStrings = (a) => Array.isArray(a) && a.every((s) => typeof s === 'string' && s !== '')

const TYPES = {
  string: {
    expected: 'a non-empty string',
    parse: (v) => typeof v === 'string' && v.trim() !== '' ? v : INVALID
  },
  path: {
    expected: 'a path (a non-empty string)',
    parse: (v) => typeof v === 'string' && v.trim() !== '' ? v : INVALID
  },
  boolean: {
    expected: 'true or false',
    parse: (v) => typeof v === 'boolean' ? v : INVALID
  },
  count: {
    expected: 'a whole number (0 or more)',
    parse: (v) => {
      const n = isDigits(v) ? Number(v) : v
      return Number.isSafeInteger(n) && n >= 0 ? n : INVALID
    }
  },
  duration: {
    expected: 'a duration like "200ms", "5s", "2m", "1h" or a number of milliseconds',
    parse: (v) => attempt(() => parseDuration(v)),
    format: formatDuration
  },
  bytes: {
    expected: 'a size like "300K", "10M", "1G" or a number of bytes',
    parse: (v) => attempt(() => parseBytes(v)),
    format: formatBytes
  },
  args: {
    expected: 'a string or an array of strings',
    parse: (v) => {
      if (typeof v === 'string') return splitArgs(v)
      if (Array.isArray(v) && v.every((a) => ['string', 'number'].includes(typeof a))) return v.map(String)
      return INVALID
    }
  },
  list: {
    expected: 'a comma-separated string or an array of strings',
    parse: (v) => { const a = list(v); return allStrings(a) ? a : INVALID }
  },
  exitCodes: {
    expected: 'an exit code or an array of exit codes (0-255)',
    parse: (v) => {
      const a = (Array.isArray(v) ? v : list(typeof v === 'number' ? String(v) : v))
      if (!Array.isArray(a)) return INVALID
      const codes = a.map((c) => isDigits(c) ? Number(c) : c)
      return codes.every((c) => Number.isInteger(c) && c >= 0 && c <= 255) ? codes : INVALID
    }
  },
  instances: {
    expected: 'a number, "max" or a negative number',
    // Resolved to a count later (normalize.js), where the CPU count is known.
    parse: (v) => {
      if (v === 'max') return 'max'
      const n = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v
      return Number.isSafeInteger(n) ? n : INVALID
    }
  },
  execMode: {
    expected: '"cluster" or "fork"',
    parse: (v) => ({ cluster: 'cluster', cluster_mode: 'cluster', fork: 'fork', fork_mode: 'fork' })[v] ?? INVALID
  },
  logType: {
    expected: '"raw" or "json"',
    parse: (v) => v === 'raw' || v === 'json' ? v : INVALID
  },
  signal: {
    expected: 'a signal name such as "SIGINT" or "SIGTERM"',
    parse: (v) => {
      if (typeof v !== 'string') return INVALID
      const name = v.toUpperCase().startsWith('SIG') ? v.toUpperCase() : 'SIG' + v.toUpperCase()
      return name in os.constants.signals ? name : INVALID
    }
  },
  env: {
    expected: 'an object of strings, numbers or booleans',
    parse: (v) => {
      if (!isPlainObject(v)) return INVALID
      const out = {}
      for (const [k, val] of Object.entries(v)) {
        if (val === null || val === undefined) continue
        if (!['string', 'number', 'boolean'].includes(typeof val)) return INVALID
        out[k] = String(val)
      }
      return out
    }
  },
  logFile: {
    expected: 'a path or true (true: <XPM_HOME>/logs/<name>.log)',
    parse: (v) => v === true || v === false ? v : TYPES.path.parse(v)
  },
  watch: {
    expected: 'true, false, a path or an array of paths',
    parse: (v) => typeof v === 'boolean' ? v : TYPES.list.parse(v)
  },
  cron: {
    expected: 'a cron expression such as "0 3 * * *"',
    parse: (v) => {
      if (typeof v !== 'string' || v.trim() === '') return INVALID
      const { Cron } = require('croner')
      return attempt(() => { new Cron(v, { paused: true }).stop(); return v.trim() })
    }
  }
}

// The few options that may be null (off) accept null explicitly.
function parseValue (type, value, { nullable = false } = {}) {
  if (value === null && nullable) return null
  return TYPES[type].parse(value)
}

module.exports = { TYPES, INVALID, parseValue, splitArgs, isPlainObject }
