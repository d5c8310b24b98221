'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { show } = require('../../lib/shared/units')
const { MAX_LOG_LINES } = require('../../lib/shared/config/limits')
const { isFieldList } = require('../../lib/shared/process-fields')

// Checks of the params every socket method takes. A value of the wrong type or out of range is
// an XPM_ERR_BAD_ARGUMENT that names the param (never an internal error further in). Params is
// always an object here (daemon/server.js refuses anything else).
const bad = (what, value) => new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected ${what}, got ${show(value)}`)

// 'all', an app name, a process id, a namespace or a script (a string, or a whole number from a
// hand-written client), or a non-empty array of up to 1024 of these (several targets at once).
const MAX_TARGETS = 1024
function oneTarget (value) {
  if (typeof value === 'string' && value !== '' && value.length <= 1024) return value
  if (Number.isSafeInteger(value) && value >= 0) return String(value)
  return null
}

function target (params, { optional = false } = {}) {
  const value = params.target
  if (value === undefined && optional) return 'all'
  const single = oneTarget(value)
  if (single !== null) return single
  if (Array.isArray(value) && value.length > 0 && value.length <= MAX_TARGETS) {
    const list = value.map(oneTarget)
    if (!list.includes(null)) return list.length === 1 ? list[0] : list
  }
  throw bad(`\`target\` to be an app name, a process id, a namespace, a script, "all", or an array of up to ${MAX_TARGETS} of these`, value)
}

const isAll = (name) => name === 'all'

function optionalBoolean (params, key, fallback) {
  const value = params[key]
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw bad(`\`${key}\` to be true or false`, value)
  return value
}

// An array whose items are all in `allowed` (no repeats needed); undefined → fallback.
function optionalSubset (params, key, allowed, fallback) {
  const value = params[key]
  if (value === undefined) return fallback
  if (!Array.isArray(value) || value.length === 0 || value.length > allowed.length * 4 || !value.every((v) => allowed.includes(v))) {
    throw bad(`\`${key}\` to be a non-empty array of ${allowed.map((a) => `"${a}"`).join(', ')}`, value)
  }
  return value
}

// The fields a reply keeps (lib/shared/process-fields.js); null: all of them.
function optionalFields (params) {
  const value = params.fields
  if (value === undefined || value === null) return null
  if (!isFieldList(value)) throw bad('`fields` to be a list of up to 64 field names', value)
  return value
}

function lineCount (params) {
  const value = params.lines
  if (value === undefined) return 15
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_LOG_LINES) throw bad(`\`lines\` to be a whole number from 0 to ${MAX_LOG_LINES}`, value)
  return value
}

module.exports = { bad, target, isAll, optionalBoolean, optionalSubset, optionalFields, lineCount }
