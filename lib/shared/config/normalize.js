'use strict'

const fs = require('node:fs')
const path = require('node:path')
const util = require('node:util')
const { XpmError } = require('../errors')
const { homePaths } = require('../paths')
const { OPTIONS, optionOf } = require('./options')
const { MAX_INSTANCES } = require('./limits')
const { processCpus } = require('../cpus')
const { DEV_NULL, TYPES, INVALID } = require('./types')
const { parseAppOptions, checkName, throwProblems, checkAppObject } = require('./validate')
const { withoutInternals } = require('../internal-env')
const { reusePortProblem } = require('./validate-spec')
const { resolveScript, isNodeRuntime, clusterInterpreter, normalizeInterpreter, defaultName } = require('./script')
const { resolveUser, privilegeProblem } = require('./users')

// Raw app (PM2 keys) -> normalized spec (see CONTEXT "Normalized app spec").
// overrides: already-parsed values from CLI flags, applied over the file's values.
// notices: where to push { app, key, message } for what xpm accepts without acting on it.
// deployEnv: the file's `deploy.<envName>.env` (PM2 merges it under the app's env).
function normalizeApp (raw, { baseDir = process.cwd(), env = process.env, envName, deployEnv = null, overrides = {}, scriptArgs, cpus, label, notices = null } = {}) {
  const app = label ?? appLabel(raw)
  checkAppObject(raw, `app "${app}"`)
  const problems = []
  const parsed = parseAppOptions(raw, { app, problems, notices })
  throwProblems(problems)
  // PM2's PM2_KILL_TIMEOUT & co. (pm2-env.js): defaults under the file's values and the flags
  const { pm2EnvDefaults } = require('./pm2-env')
  return buildSpec({ ...pm2EnvDefaults(env), ...parsed.values, ...overrides }, parsed.envs, { baseDir, env, envName, deployEnv, scriptArgs, cpus, app, notices })
}

// The name an app goes by in messages before it is normalized.
function appLabel (raw, index) {
  if (typeof raw?.name === 'string' && raw.name) return raw.name
  const script = ['script', 'exec', 'cmd', 'command'].map((k) => raw?.[k]).find((s) => typeof s === 'string' && s)
  if (script) return defaultName(script.trim().split(/\s+/)[0])
  return index === undefined ? '?' : `#${index + 1}`
}

// The name an app of a file will have (name_prefix and append_env_to_name applied), without
// building its spec: for commands that only need the names (stop, delete).
function nameOf (raw, { envName, label = appLabel(raw) } = {}) {
  const { values } = parseAppOptions(raw, { app: label, problems: [] })
  return appName({ ...values, name: values.name ?? label }, { name: label }, envName)
}

function buildSpec (values, envs, { baseDir, env, envName, deployEnv = null, scriptArgs, cpus, app, notices = null }) {
  const where = ` in app "${app}"`
  const val = (key) => key in values ? values[key] : optionOf(key).default
  const notice = (key, message) => notices?.push({ app, key, message })
  if (values.script === undefined) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `Expected \`script\` to be a path, got nothing${where}`, { details: { app, key: 'script' } })
  }
  const cwd = values.cwd === undefined ? path.resolve(baseDir) : path.resolve(baseDir, values.cwd)
  checkCwd(cwd, values.cwd, where)
  // PM2: `script: 'serve'` is its static file server (lib/shared/serve), unless cwd has a file of that name
  const script = values.script === 'serve' && !fs.existsSync(path.join(cwd, 'serve')) ? require('../serve/static-server').SCRIPT : values.script
  const run = resolveScript(script, { cwd, env, where })
  const name = values.script === script ? appName(values, run, envName) : appName({ name: 'static-page-server', ...values }, run, envName)
  checkName(name, where)
  const execMode = execModeFor(values, run, where)
  const instances = values.instances === undefined ? 1 : instanceCount(values.instances, cpus ?? processCpus().count)
  let interpreter = values.interpreter === undefined ? run.interpreter : normalizeInterpreter(values.interpreter)
  if (execMode === 'cluster' && interpreter !== 'node') {
    // a Node binary of the user's: cluster workers are forked by the daemon, on its own Node
    notice('interpreter', `cluster workers run on xpm's Node (${process.execPath}, ${process.version}), not on ${interpreter}`)
    interpreter = clusterInterpreter(interpreter)
  }
  const abs = (p) => p === null ? null : path.resolve(cwd, p)
  const logFile = val('log_file')
  const noLogs = values.disable_logs === true
  const ids = resolveUser({ uid: val('uid'), gid: val('gid') }, { where })
  const privilege = privilegeProblem(ids)
  if (privilege) throw new XpmError('XPM_ERR_CONFIG_INVALID', `\`uid\`/\`gid\`${where}: ${privilege}`, { details: { app, key: values.uid !== undefined ? 'uid' : 'gid' } })

  const own = fileEnv(values, envs, envName, cwd, where, deployEnv)
  const spec = {
    name,
    namespace: val('namespace'),
    script: run.script,
    args: [...run.args, ...(scriptArgs && scriptArgs.length ? scriptArgs.map(String) : val('args'))],
    cwd,
    interpreter,
    nodeArgs: [...run.nodeArgs, ...(values.interpreter === undefined ? run.shebangArgs ?? [] : []), ...(val('node_args') ?? [])],
    instances,
    execMode,
    env: buildEnv(env, values, own),
    // the names of the variables the app's own configuration sets (env, port, env_file,
    // env_<name>), as opposed to those inherited from the CLI's environment: what `xpm apply`
    // compares (lib/cli/apply/plan.js, docs/ecosystem.md#the-environment-as-desired-state)
    envFromFile: Object.keys(own).sort(),
    logs: {
      outFile: noLogs ? DEV_NULL : abs(val('out_file')),
      errorFile: noLogs ? DEV_NULL : abs(val('error_file')),
      logFile: noLogs || !logFile ? null : logFile === true ? path.join(homePaths(env.XPM_HOME).logsDir, `${name}.log`) : abs(logFile),
      // PM2: a file per instance unless merge_logs, which is on by default for a single fork
      perInstance: values.merge_logs === undefined ? execMode === 'cluster' || instances > 1 : !values.merge_logs,
      time: val('time'),
      dateFormat: val('log_date_format'),
      json: val('log_type') === 'json',
      rotate: { size: val('log_max_size'), maxFiles: val('log_max_files'), interval: val('log_interval'), compress: val('log_compress') }
    },
    watch: watchPaths(val('watch'), cwd),
    ignoreWatch: [...val('ignore_watch'), ...watchIgnored(values.watch_options, notice)],
    pidFile: abs(val('pid_file')),
    uid: ids.uid,
    gid: ids.gid
  }
  for (const option of OPTIONS) {
    if (option.target && !(option.target in spec) && !option.target.includes('.')) spec[option.target] = val(option.key)
  }
  // As PM2: source maps on when the script has a `.map` file next to it, unless the app says
  // (source_map_support, or disable_source_map_support / --disable-source-map-support).
  if (values.source_map_support === undefined) spec.sourceMapSupport = isNodeRuntime(interpreter) && hasSourceMap(spec.script)
  const reuse = reusePortProblem(spec)
  if (reuse) throw new XpmError('XPM_ERR_CONFIG_INVALID', `${reuse}${where}`, { details: { app, key: 'reuse_port' } })
  // The agent is a Node preload; other interpreters cannot load it.
  spec.metrics = spec.metrics && isNodeRuntime(interpreter)
  // 'max', 0, -n: which CPUs were counted (cgroup quota, cpuset, cores), for `xpm show` (lib/shared/cpus.js)
  if (cpus === undefined && (values.instances === 'max' || values.instances <= 0)) {
    spec.instancesFrom = { requested: values.instances, count: spec.instances, source: processCpus().source }
  }
  return spec
}

// name, or the script's; then name_prefix (`<prefix>:<name>`) and append_env_to_name (`<name>-<env>`).
function appName (values, run, envName) {
  let name = values.name ?? run.name
  if (values.name_prefix && !name.startsWith(`${values.name_prefix}:`)) name = `${values.name_prefix}:${name}`
  if (values.append_env_to_name && envName) name = `${name}-${envName}`
  return name
}

function hasSourceMap (script) {
  try { return fs.statSync(`${script}.map`).isFile() } catch { return false }
}

function watchPaths (watch, cwd) {
  if (watch === true) return [cwd]
  return Array.isArray(watch) && watch.length ? watch.map((p) => path.resolve(cwd, p)) : false
}

// PM2's watch_options are chokidar's: `ignored` (strings) adds to ignore_watch; xpm's watcher is
// fs.watch, so the rest does not apply, and the user is told once.
function watchIgnored (options, notice) {
  if (!options) return []
  const { ignored, ...rest } = options
  const list = ignored === undefined ? [] : Array.isArray(ignored) ? ignored : [ignored]
  const strings = list.filter((p) => typeof p === 'string' && p !== '' && !p.includes('\0'))
  const dropped = Object.keys(rest)
  if (strings.length < list.length) dropped.unshift('ignored (other than strings)')
  if (dropped.length) notice('watch_options', `xpm watches with fs.watch, not chokidar: ${dropped.join(', ')} ${dropped.length === 1 ? 'does' : 'do'} not apply (ignored); watch_delay debounces changes`)
  return strings
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

// 'max', 0 and negative counts follow the CPU count, within 1..MAX_INSTANCES (limits.js); an
// explicit count above the limit was refused by validate.js.
function instanceCount (value, cpus) {
  const count = value === 'max' || value === 0 ? cpus : value < 0 ? cpus + value : value
  return Math.min(MAX_INSTANCES, Math.max(1, count))
}

// Cluster mode runs Node scripts only; a message about an interpreter xpm inferred says how.
function execModeFor (values, run, where) {
  const given = values.interpreter !== undefined
  const interpreter = given ? normalizeInterpreter(values.interpreter) : run.interpreter
  if (!given && interpreter === null) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `cannot tell how to run ${run.script}${where}: ${run.why}`, { details: { key: 'interpreter' } })
  }
  const mode = values.exec_mode ?? (values.instances !== undefined && interpreter === 'node' ? 'cluster' : 'fork')
  if (mode === 'cluster' && clusterInterpreter(interpreter) === null) {
    const inferred = given ? '' : ` (inferred: ${run.why}; set interpreter: "node" to run it under Node)`
    throw new XpmError('XPM_ERR_CONFIG_INVALID',
      `Expected \`exec_mode\` to be "fork" for interpreter "${interpreter}"${inferred} (cluster mode runs Node scripts only), got "cluster"${where}`,
      { details: { key: 'exec_mode' } })
  }
  return mode
}

// Later sources win: the CLI's environment (less xpm's own per-process variables and what
// filter_env leaves out), env, port, env_file, env_<name>.
function buildEnv (cliEnv, values, own) {
  const baseEnv = withoutInternals(cliEnv)
  const filter = values.filter_env
  const inherited = filter === true
    ? {}
    : Array.isArray(filter) && filter.length ? Object.fromEntries(Object.entries(baseEnv).filter(([k]) => !filter.some((p) => k.startsWith(p)))) : baseEnv
  return { ...inherited, ...own }
}

// The variables the app's configuration sets itself: env, port, env_file, env_<name>.
function fileEnv (values, envs, envName, cwd, where, deployEnv = null) {
  const deployed = deployEnv ? TYPES.env.parse(deployEnv) : {}
  const env = { ...(deployed === INVALID ? {} : deployed), ...values.env }
  if (values.port !== undefined) env.PORT = String(values.port)
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

module.exports = { normalizeApp, buildSpec, appLabel, nameOf, defaultName, instanceCount }
