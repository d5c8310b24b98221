'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { XpmError } = require('../../shared/errors')
const { isPlainObject } = require('../../shared/config/types')
const { configBytes: formatBytes, configDuration: formatDuration } = require('../../shared/quantity')

// `xpm import`: a PM2 setup as PM2 saves it (`pm2 save` → $PM2_HOME/dump.pm2: a JSON array with
// one entry per process, each PM2's pm2_env of that process) → the apps of an ecosystem file
// (PM2 keys, as a user would write them), plus what could not be carried over. Pure apart from
// reading the dump; nothing of PM2's is written, started or stopped.

// PM2's home: $PM2_HOME, else ~/.pm2 (as PM2 finds it).
function pm2Home (env = process.env) {
  return env.PM2_HOME ? path.resolve(env.PM2_HOME) : path.join(env.HOME || os.homedir(), '.pm2')
}

function readDump (file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    const hint = err.code === 'ENOENT' ? ' (run `pm2 save` first, or give the dump file: `xpm import <file>`)' : ''
    throw new XpmError('XPM_ERR_IMPORT_SOURCE', `cannot read the PM2 dump ${file}: ${err.code || err.message}${hint}`, { cause: err, details: { file } })
  }
  let entries
  try {
    entries = JSON.parse(text)
  } catch (err) {
    throw new XpmError('XPM_ERR_IMPORT_SOURCE', `the PM2 dump ${file} is not JSON: ${err.message}`, { cause: err, details: { file } })
  }
  if (!Array.isArray(entries) || !entries.every(isPlainObject)) {
    throw new XpmError('XPM_ERR_IMPORT_SOURCE', `the PM2 dump ${file} is not a list of processes (PM2 writes one with \`pm2 save\`)`, { details: { file } })
  }
  return entries
}

// Environment variables PM2 puts into every process's env for itself.
const PM2_OWN_ENV = /^(PM2_|pm_|axm_|PM2$)/
const PM2_OWN_ENV_NAMES = new Set(['unique_id', 'NODE_APP_INSTANCE', 'name', 'namespace', 'status', 'km_link', 'vizion_running', 'pmx', 'automation', 'windowsHide', 'instance_var', 'exec_mode', 'exec_interpreter', '_'])

const WANTED_ONLINE = new Set(['online', 'launching', 'waiting restart', 'one-launch-status'])
const RUN_MODES = { cluster_mode: 'cluster', fork_mode: 'fork', cluster: 'cluster', fork: 'fork' }

// Options PM2 keeps under the same key and meaning, with PM2's own default (not written when
// the dump holds it: the file says only what the user chose).
const SAME = {
  autorestart: true,
  watch: false,
  ignore_watch: undefined,
  watch_delay: undefined,
  cron_restart: undefined,
  min_uptime: undefined,
  max_restarts: undefined,
  restart_delay: 0,
  exp_backoff_restart_delay: undefined,
  kill_timeout: 1600,
  listen_timeout: undefined,
  wait_ready: false,
  shutdown_with_message: false,
  stop_exit_codes: undefined,
  increment_var: undefined,
  log_date_format: undefined,
  time: false,
  log_type: undefined,
  treekill: true,
  kill_retry_time: 100,
  uid: undefined,
  gid: undefined
}

// dump entries → { apps: [raw app], notes: [{ app, what }], processes }.
// homes: PM2's home folders (its default log and pid files are PM2's; xpm keeps its own). env: the
// environment `xpm import` runs in: an app's variables that it holds with the same value are
// left out of the file (they reach the app anyway, as with every xpm start).
function fromDump (entries, { homes = [pm2Home()], env = process.env } = {}) {
  const notes = []
  const byName = new Map()
  for (const entry of entries) {
    const name = typeof entry.name === 'string' && entry.name ? entry.name : null
    if (!name) {
      notes.push({ app: '?', what: 'an entry without a name was skipped' })
      continue
    }
    if (entry.pmx_module === true) {
      if (!byName.has(name)) notes.push({ app: name, what: 'a PM2 module, not carried over (xpm has no modules; it rotates logs itself: log_max_size, log_max_files, log_interval)' })
      byName.set(name, null)
      continue
    }
    if (byName.get(name) === null) continue
    if (!byName.has(name)) byName.set(name, [])
    byName.get(name).push(entry)
  }
  const apps = []
  let processes = 0
  const names = [...byName.keys()] // PM2 puts an entry named after each app into env
  for (const [name, group] of byName) {
    if (!group) continue
    processes += group.length
    apps.push(appOf(name, group, { homes, env, notes, names }))
  }
  return { apps, notes, processes }
}

function appOf (name, group, { homes, env, notes, names }) {
  const first = [...group].sort((a, b) => (a.pm_id ?? 0) - (b.pm_id ?? 0))[0]
  const note = (what) => notes.push({ app: name, what })
  const app = { name }
  if (typeof first.namespace === 'string' && first.namespace && first.namespace !== 'default') app.namespace = first.namespace
  const script = first.pm_exec_path ?? first.script
  if (typeof script !== 'string' || !script) note('no script in the dump (pm_exec_path); the app cannot start until one is given')
  app.script = script ?? ''
  if (Array.isArray(first.args) && first.args.length) app.args = first.args.map(String)
  else if (typeof first.args === 'string' && first.args) app.args = first.args
  if (typeof first.pm_cwd === 'string' && first.pm_cwd) app.cwd = first.pm_cwd
  const interpreter = first.exec_interpreter
  if (typeof interpreter === 'string' && interpreter && interpreter !== 'node') app.interpreter = interpreter
  const nodeArgs = first.node_args ?? first.interpreter_args
  if ((Array.isArray(nodeArgs) && nodeArgs.length) || (typeof nodeArgs === 'string' && nodeArgs)) app.node_args = nodeArgs
  const mode = RUN_MODES[first.exec_mode] ?? 'fork'
  // one dump entry per process; "max", 0 and -1 mean the same in xpm (one per CPU, one fewer)
  const count = group.length
  const relative = first.instances === 'max' || (Number.isSafeInteger(first.instances) && first.instances <= 0)
  if (mode === 'cluster' || count > 1) {
    app.exec_mode = mode
    app.instances = relative ? first.instances : count
  }
  const instanceVar = typeof first.instance_var === 'string' && first.instance_var ? first.instance_var : 'NODE_APP_INSTANCE'
  if (instanceVar !== 'NODE_APP_INSTANCE') app.instance_var = instanceVar
  const appEnv = envOf(first, { env, instanceVar, names })
  if (Object.keys(appEnv).length) app.env = appEnv

  for (const [key, pm2Default] of Object.entries(SAME)) {
    const value = first[key]
    if (value === undefined || value === null || value === pm2Default) continue
    if (Array.isArray(value) && value.length === 0) continue
    app[key] = value
  }
  if (first.max_memory_restart !== undefined && first.max_memory_restart !== null) {
    app.max_memory_restart = typeof first.max_memory_restart === 'number' ? formatBytes(first.max_memory_restart) : first.max_memory_restart
  }
  for (const key of ['kill_timeout', 'listen_timeout', 'restart_delay', 'min_uptime', 'exp_backoff_restart_delay', 'watch_delay']) {
    if (typeof app[key] === 'number') app[key] = formatDuration(app[key])
  }

  logPaths(app, first, { homes, note, count })
  if (typeof first.pm_pid_path === 'string' && first.pm_pid_path && !isUnder(first.pm_pid_path, homes)) {
    app.pid_file = count > 1 ? first.pm_pid_path.replace(/-\d+(\.pid)?$/, '$1') : first.pm_pid_path
  }

  const wanted = group.some((e) => WANTED_ONLINE.has(e.status))
  if (!wanted) {
    app.autostart = false
    const errored = group.some((e) => e.status === 'errored')
    note(`${errored ? 'errored' : 'stopped'} in PM2: registered stopped (autostart: false); \`xpm start ${name}\` starts it`)
  }
  if (first.vizion === true && first.versioning) note('PM2 tracked its git version (vizion); xpm does not')
  if (first.post_update) note('post_update commands (PM2 Plus) are not run by xpm')
  if (first.source_map_support === true && first.disable_source_map_support !== true && hasSourceMaps(first)) {
    note('source maps: PM2 loaded source-map-support; xpm turns Node\'s own on only with source_map_support: true')
  }
  return app
}

// The app's variables: PM2's env of the process, less PM2's own, less what the importing shell
// holds with the same value.
function envOf (entry, { env, instanceVar, names }) {
  const source = isPlainObject(entry.env) ? entry.env : {}
  const out = {}
  for (const [key, value] of Object.entries(source)) {
    if (PM2_OWN_ENV.test(key) || PM2_OWN_ENV_NAMES.has(key) || key === instanceVar || names.includes(key)) continue
    if (entry.increment_var && key === entry.increment_var) {
      // PM2 wrote this instance's value; the first instance holds the base
      out[key] = String(value)
      continue
    }
    if (value === null || value === undefined || typeof value === 'object') continue
    if (env[key] === String(value)) continue
    out[key] = String(value)
  }
  return out
}

// PM2's default log files live in its home: xpm does not write into them (and has its own
// defaults); a path the user chose is carried over.
function logPaths (app, entry, { homes, note, count }) {
  const own = []
  for (const [key, field] of [['out_file', 'pm_out_log_path'], ['error_file', 'pm_err_log_path'], ['log_file', 'pm_log_path']]) {
    let file = entry[field]
    if (typeof file !== 'string' || !file) continue
    if (file === '/dev/null' || file === 'NULL') {
      if (key !== 'log_file') app[key] = '/dev/null'
      continue
    }
    if (isUnder(file, homes)) {
      own.push(file)
      continue
    }
    // merge_logs: false gave every instance its own file, <file>-<pm_id>.log, and only to a
    // name ending in .log (docs/logs.md): `logs.txt` was one shared file and stays so
    if (entry.merge_logs !== true && count > 1) file = file.replace(/-\d+\.log$/, '.log')
    app[key] = file
  }
  // one file per instance is the default for several instances, in PM2 and xpm alike
  if (entry.merge_logs === true && count > 1) app.merge_logs = true
  if (own.length) note(`logs: PM2's own files (${own.map((f) => path.basename(f)).join(', ')}) stay PM2's; xpm writes its own (\`xpm show ${app.name}\` prints where)`)
}

function isUnder (file, dirs) {
  return dirs.some((dir) => {
    const rel = path.relative(dir, path.resolve(file))
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
  })
}

function hasSourceMaps (entry) {
  const script = entry.pm_exec_path
  if (typeof script !== 'string') return false
  try { return fs.statSync(`${script}.map`).isFile() } catch { return false }
}

module.exports = { pm2Home, readDump, fromDump }
