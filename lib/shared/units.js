'use strict'

const { XpmError } = require('./errors')

// Sizes use binary multiples, as log rotation tools (and PM2) read '10M'.
const BYTE_UNITS = { B: 1, K: 1024, KB: 1024, M: 1024 ** 2, MB: 1024 ** 2, G: 1024 ** 3, GB: 1024 ** 3 }
const MS_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

function show (value) {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (value === undefined) return 'nothing'
  if (typeof value === 'function') return 'a function'
  let text
  try { text = JSON.stringify(value) } catch { text = Object.prototype.toString.call(value) }
  return text.length > 60 ? text.slice(0, 57) + '...' : text
}

function invalid (what, expected, value) {
  const subject = what ? `${what} to be ` : ''
  return new XpmError('XPM_ERR_CONFIG_INVALID', `Expected ${subject}${expected}, got ${show(value)}`)
}

// what: how to name the value in the error, e.g. '`kill_timeout`'.
// A number is taken as bytes; a string needs a unit: '300K', '10M', '1G', '512B'.
function parseBytes (value, what) {
  const expected = 'a size like "300K", "10M", "1G" or a number of bytes'
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return Math.floor(value)
    throw invalid(what, expected, value)
  }
  const match = typeof value === 'string' && /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(value)
  const factor = match && BYTE_UNITS[match[2].toUpperCase()]
  if (!factor) throw invalid(what, expected, value)
  return Math.floor(Number(match[1]) * factor)
}

// A number is taken as milliseconds; a string needs a unit: '200ms', '5s', '2m', '1h', '1d'.
function parseDuration (value, what) {
  const expected = 'a duration like "200ms", "5s", "2m", "1h" or a number of milliseconds'
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return Math.round(value)
    throw invalid(what, expected, value)
  }
  const match = typeof value === 'string' && /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(value)
  const factor = match && MS_UNITS[match[2]]
  if (!factor) throw invalid(what, expected, value)
  return Math.round(Number(match[1]) * factor)
}

// The config form back ('10M', '5s') lives with the other formatters in lib/shared/quantity.js; these
// two names stay for lib/shared/config/types.js, which another change owns.
const { configBytes: formatBytes, configDuration: formatDuration } = require('./quantity')

module.exports = { parseBytes, parseDuration, formatBytes, formatDuration, show }
