'use strict'

const { XpmError } = require('../errors')
const { show } = require('../units')
const { OPTIONS } = require('./options')
const { TYPES, outOfRange, noNul, isPlainObject } = require('./types')
const { MAX_PATH_BYTES } = require('./limits')
const { isNodeRuntime, clusterInterpreter } = require('./script')
const { privilegeProblem } = require('./users')

// The daemon's check of a normalized spec that arrives over the socket (or from a saved state):
// the same rules as the CLI's config model, read from the same table (options.js) with the same
// parsers and bounds (types.js, limits.js), applied to the normalized form: every option's
// value, types, ranges, enums, signal names, cron expressions that croner schedules. A spec the
// CLI produced always passes; a hand-written client cannot make the daemon hold a value it would
// choke on later. Pure and cheap (no fs: the daemon checks paths asynchronously, see
// daemon/check-specs.js). Fields the table does not know are ignored.

const isText = (v) => noNul(v) && v !== '' && Buffer.byteLength(v) <= MAX_PATH_BYTES

// One entry per field of the normalized spec, with its type's check of the normalized form
// (types.js `spec`); numbers are bounded afterwards by the option's range (outOfRange), exactly
// as in the CLI. Options the CLI folds into other fields (target null: env_file, filter_env,
// port, …) and env_<name> (it lands in env, checked once) have none.
const FIELDS = OPTIONS.filter((o) => !o.pattern && o.target && !o.into).map((option) => {
  const [ok, expected] = TYPES[option.type].spec
  return { option, path: option.target.split('.'), ok, expected: option.nullable ? `null or ${expected}` : expected }
})

function get (object, keys) {
  let value = object
  for (const key of keys) value = isPlainObject(value) ? value[key] : undefined
  return value
}

// The one statement of when reuse_port can apply: the CLI's normalizer and the daemon's check both ask.
function reusePortProblem (spec) {
  if (spec.reusePort !== true) return null
  if (spec.execMode !== 'cluster') return 'reusePort (reuse_port) applies to cluster mode only (exec_mode "cluster", or instances on a Node script): a fork-mode process already listens itself'
  if (isPlainObject(spec.env) && spec.env.XPM_AGENT === '0') return 'reusePort (reuse_port) needs xpm\'s agent in the workers, and the app\'s env has XPM_AGENT=0'
  return null
}

function checkSpec (spec) {
  if (!isPlainObject(spec)) return [`an app spec should be an object, got ${show(spec)}`]
  const problems = []
  if (!isPlainObject(spec.logs)) problems.push(`logs should be an object, got ${show(spec.logs)}`)
  else if (!isPlainObject(spec.logs.rotate)) problems.push(`logs.rotate should be an object, got ${show(spec.logs.rotate)}`)
  for (const { option, path: keys, ok, expected } of FIELDS) {
    const value = get(spec, keys)
    const where = keys.join('.')
    // a nullable option missing from a spec saved by an earlier xpm is off, as null is; one with
    // a default gets it (validateSpec fills it in)
    if ((value === null || value === undefined) && option.nullable) continue
    if (value === undefined && option.default !== undefined && (keys.length === 1 || isPlainObject(get(spec, keys.slice(0, -1))))) continue
    if (!ok(value)) {
      if (keys.length === 1 || isPlainObject(get(spec, keys.slice(0, -1)))) problems.push(`${where} should be ${expected}, got ${show(value)}`)
      continue
    }
    const bound = outOfRange(option, value)
    if (bound) problems.push(`${where} (${option.key}) should be ${bound}, got ${show(value)}`)
  }
  if (spec.execMode === 'cluster' && spec.interpreter !== clusterInterpreter(spec.interpreter)) problems.push('execMode "cluster" needs interpreter "node"')
  const reuse = reusePortProblem(spec)
  if (reuse) problems.push(reuse)
  if (spec.metrics === true && isText(spec.interpreter) && !isNodeRuntime(spec.interpreter)) problems.push('metrics needs a Node interpreter (the agent is a Node preload)')
  const privilege = (Number.isSafeInteger(spec.uid) || Number.isSafeInteger(spec.gid)) ? privilegeProblem({ uid: spec.uid ?? null, gid: spec.gid ?? null }) : null
  if (privilege) problems.push(privilege)
  return problems
}

// Throws on any problem; else fills in the defaults of fields the spec lacks (a spec saved by an
// earlier xpm, a client that leaves defaults out), in place, and returns it: every spec the
// daemon holds is complete, so no other file needs a default of its own.
function validateSpec (spec) {
  const problems = checkSpec(spec)
  if (problems.length) {
    const name = typeof spec?.name === 'string' ? ` ${show(spec.name.slice(0, 130))}` : ''
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Invalid app spec${name}: ${problems.join('; ')}`, { details: { problems } })
  }
  for (const { option, path: keys } of FIELDS) {
    const parent = keys.length === 1 ? spec : get(spec, keys.slice(0, -1))
    const last = keys.at(-1)
    if (parent[last] === undefined && option.default !== undefined) parent[last] = structuredClone(option.default)
  }
  return spec
}

module.exports = { checkSpec, validateSpec, reusePortProblem }
