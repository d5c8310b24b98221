'use strict'

const path = require('node:path')
const { XpmError } = require('../errors')
const { show } = require('../units')
const { OPTIONS, findOption, allKeys, flagAttribute } = require('./options')
const { TYPES, INVALID, parseValue, outOfRange, nameProblem, isPlainObject } = require('./types')
const { didYouMean } = require('./suggest')

// Raw option values (from a file or from flags) checked against options.js and parsed.
// Result: { values: { <canonical key>: parsed }, envs: { <name>: { VAR: 'value' } } }.
// Problems are pushed to `problems` (XpmErrors) so a whole file is reported at once.

function invalid (what, type, value, where, app, key) {
  const expected = TYPES[type].expected
  return new XpmError('XPM_ERR_CONFIG_INVALID', `Expected ${what} to be ${expected}, got ${show(value)}${where}`,
    { details: { app, key, expected, given: given(value) } })
}

// A given value as details carry it: JSON-safe and short.
function given (value) {
  if (value === undefined) return null
  return typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? show(value) : value
}

// A value of the right type beyond the option's bounds (limits.js): 'at most 24d (…)'.
function outside (what, bound, value, where, key, app) {
  return new XpmError('XPM_ERR_CONFIG_INVALID', `Expected ${what} to be ${bound}, got ${show(value)}${where}`,
    { details: { app, key, expected: bound, given: given(value) } })
}

// notices: where to push { app, key, message } for PM2 keys xpm accepts without acting on them.
function parseAppOptions (raw, { app, problems, notices = null }) {
  const where = ` in app "${app}"`
  const values = {}
  const envs = {}
  for (const [key, value] of Object.entries(raw)) {
    const option = findOption(key)
    if (!option) {
      // As PM2, a key it does not know is ignored (a file may carry keys for other tools); one
      // close to a known key is a typo that would silently lose a setting: refused, with it.
      const near = didYouMean(key, allKeys())
      if (near) problems.push(new XpmError('XPM_ERR_CONFIG_UNKNOWN_KEY', `unknown option "${key}"${where}${near}`, { details: { app, key } }))
      else notices?.push({ app, key, message: 'not an option of xpm or PM2; ignored' })
      continue
    }
    if (value === undefined) continue
    if (option.notice !== undefined) {
      if (option.notice && value !== option.quietWhen) notices?.push({ app, key: option.key, message: option.notice })
      continue
    }
    const parsed = parseValue(option.type, value, option)
    const bound = parsed === INVALID ? null : outOfRange(option, parsed)
    if (parsed === INVALID) {
      problems.push(invalid(`\`${key}\``, option.type, value, where, app, key))
    } else if (bound) {
      problems.push(outside(`\`${key}\``, bound, value, where, key, app))
    } else if (option.pattern) {
      envs[key.slice('env_'.length)] = parsed
    } else if (option.into) {
      values[option.into] = option.map(parsed)
    } else {
      values[option.key] = parsed
    }
  }
  return { values, envs }
}

// Flags as commander hands them over (camelCase attributes, string values). Paths given on the
// command line are relative to the shell's cwd, so they are made absolute here.
function parseFlags (flags = {}, { cwd }) {
  const values = {}
  for (const option of OPTIONS) {
    if (!option.flag) continue
    let value = flags[flagAttribute(option.flag)]
    if (value === undefined) continue
    // on the command line a bare number is milliseconds or bytes, as PM2 reads it
    if (['duration', 'bytes'].includes(option.type) && /^\d+$/.test(value)) value = Number(value)
    // commander gives a lone --no-x a default of true, indistinguishable from "not given"
    if (option.flag.startsWith('--no-') && value !== false) continue
    const long = /--[a-z0-9-]+/.exec(option.flag)[0]
    const parsed = parseValue(option.type, value, option)
    if (parsed === INVALID) throw invalid(`\`${long}\``, option.type, value, '')
    const bound = outOfRange(option, parsed)
    if (bound) throw outside(`\`${long}\``, bound, value, '', option.key)
    if (option.into) values[option.into] = option.map(parsed)
    else values[option.key] = absolutePaths(option, parsed, cwd)
  }
  return values
}

function absolutePaths (option, value, cwd) {
  if (['path', 'logFile'].includes(option.type) && typeof value === 'string') return path.resolve(cwd, value)
  if (option.type === 'watch' && Array.isArray(value)) return value.map((p) => path.resolve(cwd, p))
  return value
}

// Names are used in log file names and on the command line next to ids and "all"; a name
// derived from the script's file name is checked by the same rule (types.js nameProblem).
function checkName (name, where) {
  const problem = nameProblem(name)
  if (problem) throw new XpmError('XPM_ERR_CONFIG_INVALID', `Expected \`name\` to be ${problem}, got ${show(name)}${where}`)
}

function checkDuplicates (specs, source) {
  const seen = new Set()
  for (const spec of specs) {
    if (seen.has(spec.name)) {
      throw new XpmError('XPM_ERR_DUPLICATE_APP', `two apps are named "${spec.name}"${source ? ` in ${source}` : ''}; app names must be unique`,
        { details: { name: spec.name } })
    }
    seen.add(spec.name)
  }
}

// One error for a list of problems, each of them one line of its message (problems that are
// lists themselves are flattened): the first one's code, all of them in details.problems.
function throwProblems (problems, { source = null } = {}) {
  const all = problems.flatMap((p) => p.details?.problems?.length ? p.details.problems.map((q) => ({ ...q })) : [{ code: p.code, message: p.message, ...pick(p.details) }])
  if (all.length === 0) return
  if (problems.length === 1 && all.length === 1) throw problems[0]
  const header = `${all.length} problems${source ? ` in ${source}` : ''} (nothing was done):`
  throw new XpmError(all[0].code, [header, ...all.map((p) => `  - ${p.message}`)].join('\n'), { details: { problems: all } })
}

function pick (details) {
  return details ? Object.fromEntries(['app', 'key'].filter((k) => details[k] !== undefined).map((k) => [k, details[k]])) : {}
}

function checkAppObject (raw, label) {
  if (!isPlainObject(raw)) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Expected ${label} to be an object of options, got ${show(raw)}`)
  }
}

module.exports = { parseAppOptions, parseFlags, checkName, checkDuplicates, throwProblems, checkAppObject }
