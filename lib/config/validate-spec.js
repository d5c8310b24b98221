'use strict'

const path = require('node:path')
const { XpmError } = require('../errors')
const { show } = require('../units')

// A cheap structural check of a normalized spec, for specs that arrive over the socket: the
// daemon relies on these fields and a hand-written client must not be able to crash it.
// Pure: no fs. Returns the problems found (strings), empty when the spec is usable.

const isInt = (v, min) => Number.isSafeInteger(v) && v >= min
const isMs = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0
const isAbs = (v) => typeof v === 'string' && path.isAbsolute(v)
const isStrings = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string')
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

const FIELDS = {
  name: [(v) => typeof v === 'string' && v !== '' && !/^\d+$/.test(v) && v !== 'all' && !/[/\\\0]/.test(v), 'a name (not a number, not "all", no slashes)'],
  script: [isAbs, 'an absolute path'],
  cwd: [isAbs, 'an absolute path'],
  args: [isStrings, 'an array of strings'],
  interpreter: [(v) => typeof v === 'string' && v !== '', 'a non-empty string'],
  nodeArgs: [isStrings, 'an array of strings'],
  instances: [(v) => isInt(v, 1), 'a whole number >= 1'],
  execMode: [(v) => v === 'cluster' || v === 'fork', '"cluster" or "fork"'],
  env: [(v) => isObject(v) && Object.values(v).every((s) => typeof s === 'string'), 'an object of strings'],
  autorestart: [(v) => typeof v === 'boolean', 'true or false'],
  maxRestarts: [(v) => isInt(v, 0), 'a whole number >= 0'],
  restartWindow: [isMs, 'milliseconds'],
  minUptime: [isMs, 'milliseconds'],
  restartDelay: [isMs, 'milliseconds'],
  expBackoffRestartDelay: [isMs, 'milliseconds'],
  maxBackoffDelay: [isMs, 'milliseconds'],
  stopExitCodes: [(v) => Array.isArray(v) && v.every((c) => isInt(c, 0)), 'an array of exit codes'],
  killTimeout: [isMs, 'milliseconds'],
  killSignal: [(v) => typeof v === 'string' && v.startsWith('SIG'), 'a signal name'],
  listenTimeout: [isMs, 'milliseconds'],
  waitReady: [(v) => typeof v === 'boolean', 'true or false'],
  shutdownWithMessage: [(v) => typeof v === 'boolean', 'true or false'],
  metrics: [(v) => typeof v === 'boolean', 'true or false'],
  logs: [isObject, 'an object'],
  watch: [(v) => v === false || (isStrings(v) && v.every((p) => path.isAbsolute(p))), 'false or absolute paths'],
  ignoreWatch: [isStrings, 'an array of strings'],
  watchDelay: [isMs, 'milliseconds'],
  maxMemoryRestart: [(v) => v === null || isInt(v, 1), 'null or bytes'],
  cronRestart: [(v) => v === null || (typeof v === 'string' && v !== ''), 'null or a cron expression']
}

const LOG_FIELDS = {
  outFile: [(v) => v === null || isAbs(v), 'null or an absolute path'],
  errorFile: [(v) => v === null || isAbs(v), 'null or an absolute path'],
  logFile: [(v) => v === null || isAbs(v), 'null or an absolute path'],
  perInstance: [(v) => typeof v === 'boolean', 'true or false'],
  time: [(v) => typeof v === 'boolean', 'true or false'],
  dateFormat: [(v) => v === null || typeof v === 'string', 'null or a string'],
  json: [(v) => typeof v === 'boolean', 'true or false'],
  rotate: [(v) => isObject(v) && isInt(v.size, 1) && isInt(v.maxFiles, 0) && (v.interval === null || isMs(v.interval)) &&
    typeof v.compress === 'boolean', '{ size, maxFiles, interval, compress }']
}

function checkFields (object, fields, prefix) {
  const problems = []
  for (const [key, [ok, expected]] of Object.entries(fields)) {
    if (!ok(object[key])) problems.push(`${prefix}${key} should be ${expected}, got ${show(object[key])}`)
  }
  return problems
}

function checkSpec (spec) {
  if (!isObject(spec)) return [`an app spec should be an object, got ${show(spec)}`]
  const problems = checkFields(spec, FIELDS, '')
  if (isObject(spec.logs)) problems.push(...checkFields(spec.logs, LOG_FIELDS, 'logs.'))
  if (spec.execMode === 'cluster' && spec.interpreter !== 'node') problems.push('execMode "cluster" needs interpreter "node"')
  return problems
}

function validateSpec (spec) {
  const problems = checkSpec(spec)
  if (problems.length) {
    const name = typeof spec?.name === 'string' ? ` "${spec.name}"` : ''
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Invalid app spec${name}: ${problems.join('; ')}`, { details: { problems } })
  }
  return spec
}

module.exports = { checkSpec, validateSpec }
