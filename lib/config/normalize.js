'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const util = require('node:util')
const { XpmError } = require('../errors')
const { homePaths } = require('../paths')
const { OPTIONS } = require('./options')
const { MAX_INSTANCES } = require('./limits')
const { parseAppOptions, checkName, throwProblems, checkAppObject } = require('./validate')

const NODE_EXTENSIONS = new Set(['.js', '.cjs', '.mjs'])
const INTERPRETERS = { '.py': 'python3', '.sh': 'bash' }

// Raw app (PM2 keys) -> normalized spec (see CONTEXT "Normalized app spec").
// overrides: already-parsed values from CLI flags, applied over the file's values.
function normalizeApp (raw, { baseDir = process.cwd(), env = process.env, envName, overrides = {}, scriptArgs, cpus, label } = {}) {
  const app = label ?? appLabel(raw)
  checkAppObject(raw, `app "${app}"`)
  const problems = []
  const parsed = parseAppOptions(raw, { app, problems })
  throwProblems(problems)
  return buildSpec({ ...parsed.values, ...overrides }, parsed.envs, { baseDir, env, envName, scriptArgs, cpus, app })
}

function appLabel (raw, index) {
  if (typeof raw?.name === 'string' && raw.name) return raw.name
  if (typeof raw?.script === 'string' && raw.script) return defaultName(raw.script)
  return index === undefined ? '?' : `#${index + 1}`
}

function defaultName (script) {
  return path.basename(script, path.extname(script))
}

function buildSpec (values, envs, { baseDir, env, envName, scriptArgs, cpus = os.availableParallelism(), app }) {
  const where = ` in app "${app}"`
  const val = (key) => key in values ? values[key] : OPTIONS.find((o) => o.key === key).default
  if (values.script === undefined) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Expected \`script\` to be a path, got nothing${where}`)
  }
  const cwd = values.cwd === undefined ? path.resolve(baseDir) : path.resolve(baseDir, values.cwd)
  checkCwd(cwd, values.cwd, where)
  const script = findScript(values.script, cwd, env, where)
  const name = values.name ?? defaultName(values.script)
  checkName(name, where)
  const interpreter = values.interpreter ?? defaultInterpreter(script)
  const execMode = execModeFor(values, interpreter, where)
  const abs = (p) => p === null ? null : path.resolve(cwd, p)
  const logFile = val('log_file')
  const watch = val('watch')

  const spec = {
    name,
    script,
    args: scriptArgs && scriptArgs.length ? scriptArgs.map(String) : val('args'),
    cwd,
    interpreter,
    nodeArgs: val('node_args'),
    instances: values.instances === undefined ? 1 : instanceCount(values.instances, cpus),
    execMode,
    env: buildEnv(env, values, envs, envName, cwd, where),
    logs: {
      outFile: abs(val('out_file')),
      errorFile: abs(val('error_file')),
      logFile: logFile === true ? path.join(homePaths(env.XPM_HOME).logsDir, `${name}.log`) : logFile ? abs(logFile) : null,
      perInstance: !val('merge_logs'),
      time: val('time'),
      dateFormat: val('log_date_format'),
      json: val('log_type') === 'json',
      rotate: { size: val('log_max_size'), maxFiles: val('log_max_files'), interval: val('log_interval'), compress: val('log_compress') }
    },
    watch: watch === true ? [cwd] : Array.isArray(watch) && watch.length ? watch.map(abs) : false
  }
  for (const option of OPTIONS) {
    if (!(option.target in spec) && !option.target.includes('.')) spec[option.target] = val(option.key)
  }
  // The agent is a Node preload; other interpreters cannot load it.
  spec.metrics = spec.metrics && interpreter === 'node'
  return spec
}

// A missing working directory is reported as such, not as a script that is not found (the
// daemon checks again, asynchronously: daemon/check-specs.js).
function checkCwd (cwd, given, where) {
  let stat = null
  try { stat = fs.statSync(cwd) } catch {}
  if (stat?.isDirectory()) return
  throw new XpmError('XPM_ERR_CWD_INVALID', `cwd ${cwd}${where} ${stat ? 'is not a directory' : 'does not exist'}`,
    { details: { cwd, given: given ?? null } })
}

function findScript (script, cwd, env, where) {
  const candidate = path.resolve(cwd, script)
  let stat = null
  try { stat = fs.statSync(candidate) } catch {}
  if (stat?.isFile()) return candidate
  if (!stat && !/[/\\]/.test(script)) {
    const onPath = whichSync(script, env.PATH)
    if (onPath) return onPath
  }
  const why = stat ? 'is not a file' : 'does not exist'
  const message = path.isAbsolute(script) ? `script "${script}"${where} ${why}` : `script "${script}"${where} not found: ${candidate} ${why}`
  throw new XpmError('XPM_ERR_SCRIPT_NOT_FOUND', message,
    { details: { script, path: candidate } })
}

function whichSync (command, searchPath = '') {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, command)
    try {
      fs.accessSync(file, fs.constants.X_OK)
      if (fs.statSync(file).isFile()) return file
    } catch {}
  }
  return null
}

function defaultInterpreter (script) {
  const ext = path.extname(script).toLowerCase()
  if (NODE_EXTENSIONS.has(ext)) return 'node'
  if (INTERPRETERS[ext]) return INTERPRETERS[ext]
  try {
    fs.accessSync(script, fs.constants.X_OK)
    return 'none'
  } catch {
    return 'node'
  }
}

// 'max', 0 and negative counts follow the CPU count, within 1..MAX_INSTANCES (limits.js); an
// explicit count above the limit was refused by validate.js.
function instanceCount (value, cpus) {
  const count = value === 'max' || value === 0 ? cpus : value < 0 ? cpus + value : value
  return Math.min(MAX_INSTANCES, Math.max(1, count))
}

function execModeFor (values, interpreter, where) {
  const mode = values.exec_mode ?? (values.instances !== undefined && interpreter === 'node' ? 'cluster' : 'fork')
  if (mode === 'cluster' && interpreter !== 'node') {
    throw new XpmError('XPM_ERR_CONFIG_INVALID',
      `Expected \`exec_mode\` to be "fork" for interpreter "${interpreter}" (cluster mode runs Node scripts only), got "cluster"${where}`)
  }
  return mode
}

// Later sources win: the CLI's environment, env, env_file, env_<name>.
function buildEnv (baseEnv, values, envs, envName, cwd, where) {
  const env = { ...baseEnv, ...values.env }
  if (values.env_file) Object.assign(env, readEnvFile(path.resolve(cwd, values.env_file), where))
  if (envName && envs[envName]) Object.assign(env, envs[envName])
  return env
}

function readEnvFile (file, where) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new XpmError('XPM_ERR_CONFIG_LOAD', `env_file ${file}${where} could not be read: ${err.code || err.message}`, { cause: err })
  }
  if (typeof util.parseEnv !== 'function') {
    throw new XpmError('XPM_ERR_CONFIG_LOAD', `env_file${where} needs Node 20.12 or later (util.parseEnv)`)
  }
  return util.parseEnv(text)
}

module.exports = { normalizeApp, buildSpec, appLabel, defaultName, defaultInterpreter, instanceCount }
