'use strict'

const path = require('node:path')
const { XpmError } = require('../errors')
const { show } = require('../units')
const { OPTIONS } = require('./options')
const { TYPES, INVALID, outOfRange, nameProblem, noNul, isPlainObject } = require('./types')
const { MAX_INSTANCES, MAX_PATH_BYTES } = require('./limits')

// The daemon's check of a normalized spec that arrives over the socket (or from a saved state):
// the same rules as the CLI's config model, read from the same table (options.js) with the same
// parsers and bounds (types.js, limits.js), applied to the normalized form: every option's
// value, types, ranges, enums, signal names, cron expressions that croner schedules. A spec the
// CLI produced always passes; a hand-written client cannot make the daemon hold a value it would
// choke on later. Pure and cheap (no fs: the daemon checks paths asynchronously, see
// daemon/check-specs.js). Fields the table does not know are ignored.

const isText = (v) => noNul(v) && v !== '' && Buffer.byteLength(v) <= MAX_PATH_BYTES
const isAbs = (v) => isText(v) && path.isAbsolute(v)
const isStrings = (v, nonEmpty = false) => Array.isArray(v) && v.every((s) => noNul(s) && (!nonEmpty || s !== ''))
const isInt = (v) => Number.isSafeInteger(v)

// type → [check of the normalized value, what it should be]. Numbers are bounded afterwards by
// the option's range (outOfRange), exactly as in the CLI.
const NORMALIZED = {
  name: [(v) => nameProblem(v) === null, TYPES.name.expected],
  string: [isText, 'a non-empty string'],
  path: [isAbs, 'an absolute path'],
  boolean: [(v) => typeof v === 'boolean', 'true or false'],
  count: [isInt, 'a whole number'],
  duration: [isInt, 'a whole number of milliseconds'],
  bytes: [isInt, 'a whole number of bytes'],
  args: [(v) => isStrings(v), 'an array of strings'],
  list: [(v) => isStrings(v, true), 'an array of non-empty strings'],
  exitCodes: [(v) => Array.isArray(v) && v.length <= 256 && v.every((c) => isInt(c) && c >= 0 && c <= 255), 'an array of exit codes (0-255)'],
  instances: [(v) => isInt(v) && v >= 1 && v <= MAX_INSTANCES, `a whole number from 1 to ${MAX_INSTANCES}`],
  execMode: [(v) => v === 'cluster' || v === 'fork', '"cluster" or "fork"'],
  logType: [(v) => typeof v === 'boolean', 'true or false (json lines)'],
  signal: [(v) => typeof v === 'string' && TYPES.signal.parse(v) === v, 'a signal name such as "SIGINT"'],
  env: [(v) => isPlainObject(v) && Object.entries(v).every(([k, s]) => noNul(k) && noNul(s)), 'an object of strings'],
  logFile: [isAbs, 'an absolute path'],
  watch: [(v) => v === false || (Array.isArray(v) && v.length > 0 && v.every(isAbs)), 'false or a non-empty array of absolute paths'],
  cron: [(v) => TYPES.cron.parse(v) !== INVALID, TYPES.cron.expected]
}

// One entry per field of the normalized spec (env_file and env_<name> land in env, checked once).
const FIELDS = OPTIONS.filter((o) => !o.pattern && o.key !== 'env_file').map((option) => {
  const [ok, expected] = NORMALIZED[option.type]
  return { option, path: option.target.split('.'), ok, expected: option.nullable ? `null or ${expected}` : expected }
})

function get (object, keys) {
  let value = object
  for (const key of keys) value = isPlainObject(value) ? value[key] : undefined
  return value
}

function checkSpec (spec) {
  if (!isPlainObject(spec)) return [`an app spec should be an object, got ${show(spec)}`]
  const problems = []
  if (!isPlainObject(spec.logs)) problems.push(`logs should be an object, got ${show(spec.logs)}`)
  else if (!isPlainObject(spec.logs.rotate)) problems.push(`logs.rotate should be an object, got ${show(spec.logs.rotate)}`)
  for (const { option, path: keys, ok, expected } of FIELDS) {
    const value = get(spec, keys)
    const where = keys.join('.')
    if (value === null && option.nullable) continue
    if (!ok(value)) {
      if (keys.length === 1 || isPlainObject(get(spec, keys.slice(0, -1)))) problems.push(`${where} should be ${expected}, got ${show(value)}`)
      continue
    }
    const bound = outOfRange(option, value)
    if (bound) problems.push(`${where} (${option.key}) should be ${bound}, got ${show(value)}`)
  }
  if (spec.execMode === 'cluster' && spec.interpreter !== 'node') problems.push('execMode "cluster" needs interpreter "node"')
  if (spec.metrics === true && isText(spec.interpreter) && spec.interpreter !== 'node') problems.push('metrics needs interpreter "node" (the agent is a Node preload)')
  return problems
}

function validateSpec (spec) {
  const problems = checkSpec(spec)
  if (problems.length) {
    const name = typeof spec?.name === 'string' ? ` ${show(spec.name.slice(0, 130))}` : ''
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Invalid app spec${name}: ${problems.join('; ')}`, { details: { problems } })
  }
  return spec
}

module.exports = { checkSpec, validateSpec }
