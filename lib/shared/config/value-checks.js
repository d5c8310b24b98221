'use strict'

// The small checks the value types of app options (types.js) are built from: the INVALID
// marker, names, command-line words, text that can be a path or an argument, and the checks of
// a spec's normalized form as the daemon receives it.
const path = require('node:path')
const { MAX_NAME_BYTES, MAX_PATH_BYTES } = require('./limits')

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
// A NUL byte cannot pass to spawn(), an environment or a file name: Node throws on it.
const noNul = (s) => typeof s === 'string' && !s.includes('\0')
const allStrings = (a) => Array.isArray(a) && a.every((s) => noNul(s) && s !== '')
// A non-empty string that can be a path, an argument to spawn() or a file name.
const isText = (v) => noNul(v) && v.trim() !== '' && Buffer.byteLength(v) <= MAX_PATH_BYTES

// App names end up in log file names and on the command line next to ids, "all" and flags (digits: an id wins).
// Returns null for a usable name, else what is wrong (the same rule in the CLI and the daemon).
const NAME_RULE = `a name of at most ${MAX_NAME_BYTES} bytes that is not "all", does not start with "-", ` +
  'without slashes, control characters or surrounding spaces'
function nameProblem (name) {
  if (typeof name !== 'string' || name === '') return NAME_RULE
  if (name === 'all' || name.startsWith('-') || name !== name.trim()) return NAME_RULE
  // C0 and C1 controls, DEL, the Unicode line and paragraph separators, lone surrogates
  if (/[\p{Cc}\u2028\u2029/\\]/u.test(name) || !isWellFormed(name)) return NAME_RULE
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return NAME_RULE
  return null
}

function isWellFormed (s) {
  if (typeof s.isWellFormed === 'function') return s.isWellFormed()
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)
}

// Checks of the normalized form, as the daemon receives it over the socket (validate-spec.js):
// paths are absolute, durations and sizes whole numbers, enums resolved.
const specText = (v) => noNul(v) && v !== '' && Buffer.byteLength(v) <= MAX_PATH_BYTES
const specAbs = (v) => specText(v) && path.isAbsolute(v)
const specStrings = (v, nonEmpty = false) => Array.isArray(v) && v.every((s) => noNul(s) && (!nonEmpty || s !== ''))
const specInt = (v) => Number.isSafeInteger(v)
// Any name the environment can hold (PM2 takes "newonlyfans-backend" as instance_var): no `=`,
// no NUL, not empty; a shell cannot read such a name, Node's process.env can.
const ENV_VAR = /^[^=\0]{1,256}$/
const MAX_ID = 2 ** 32 - 2 // uid_t and gid_t; -1 (2^32-1) means "unchanged" to the kernel

module.exports = {
  INVALID,
  isDigits,
  isPlainObject,
  attempt,
  splitArgs,
  list,
  noNul,
  allStrings,
  isText,
  NAME_RULE,
  nameProblem,
  specText,
  specAbs,
  specStrings,
  specInt,
  ENV_VAR,
  MAX_ID
}
