'use strict'

const { XpmError } = require('../errors')

// PM2's environment variables, each with what xpm does (docs/migrating-from-pm2.md lists them;
// test/unit/pm2-env.test.js keeps the two in step).
//   default: an app option the variable sets where the app gives no value of its own (PM2
//   reads them in constants.js as the defaults of every app); home: read by lib/shared/paths.js;
//   cli: read by the CLI; notice: accepted, xpm says what it does instead.
const PM2_ENV = [
  { name: 'PM2_HOME', kind: 'home', what: 'read when XPM_HOME is not set: xpm\'s home is then `$PM2_HOME/xpm`, so a script that gives each PM2 its own folder gives each xpm daemon its own too, and xpm never writes PM2\'s files while both run' },
  { name: 'PM2_PID_FILE_PATH', kind: 'home', what: 'the daemon\'s pid file (default `XPM_HOME/daemon.pid`)' },
  { name: 'PM2_LOG_FILE_PATH', kind: 'home', what: 'the daemon\'s own log (default `XPM_HOME/daemon.log`)' },
  { name: 'PM2_SILENT', kind: 'cli', what: '`true` or `1`: as `-s` (also `XPM_SILENT`)' },
  { name: 'PM2_RUNTIME_DEBUG', kind: 'cli', what: 'set: `xpm-runtime` hands the apps to a background daemon, as `xpm start`, and returns (PM2\'s switch for testing pm2-runtime)' },
  { name: 'PM2_KILL_TIMEOUT', kind: 'default', key: 'kill_timeout', what: 'the default `kill_timeout` of apps that set none' },
  { name: 'PM2_KILL_SIGNAL', kind: 'default', key: 'kill_signal', what: 'the default `kill_signal`' },
  { name: 'PM2_KILL_USE_MESSAGE', kind: 'default', key: 'shutdown_with_message', what: '`true`: the default `shutdown_with_message`' },
  { name: 'PM2_GRACEFUL_LISTEN_TIMEOUT', kind: 'default', key: 'listen_timeout', what: 'the default `listen_timeout`' },
  { name: 'PM2_PROCESS_INSTANCE_VAR', kind: 'default', key: 'instance_var', what: 'the default `instance_var`' },
  { name: 'PM2_NODE_OPTIONS', kind: 'default', key: 'node_args', what: 'Node flags for apps that set no `node_args`' },
  { name: 'PM2_DEEP_MONITORING', kind: 'notice', what: 'PM2 Plus deep monitoring is not provided; xpm\'s agent always reports heap and event-loop figures (`xpm monit`, `xpm show`); ignored' },
  { name: 'PM2_LOG_DATE_FORMAT', kind: 'notice', what: 'not read: give `log_date_format` (or `--log-date-format`) per app, or `--timestamp <fmt>` to `xpm logs`' },
  { name: 'PM2_GRACEFUL_TIMEOUT', kind: 'notice', what: 'not read: a reload waits `kill_timeout` for the old worker to exit' },
  { name: 'PM2_CONCURRENT_ACTIONS', kind: 'notice', what: 'not read: xpm acts on the apps of a command in parallel, and on the workers of one app one at a time' },
  { name: 'PM2_WORKER_INTERVAL', kind: 'notice', what: 'not read: memory limits are checked on every metrics sample (1 s)' },
  { name: 'PM2_DISCRETE_MODE', kind: 'notice', what: 'not read: `-s` hides xpm\'s messages' },
  { name: 'PM2_API_PORT', kind: 'notice', what: 'not read: xpm has no web API; `XPM_METRICS` serves /metrics, /livez and /readyz' },
  { name: 'PM2_PUBLIC_KEY', kind: 'notice', what: 'not read: PM2 Plus is not provided (also PM2_SECRET_KEY, PM2_MACHINE_NAME)' }
]

// The app options PM2's variables set, as already-parsed values (lowest precedence: the file
// and the flags win). A value xpm cannot read is an error that names the variable.
function pm2EnvDefaults (env = process.env) {
  const { optionOf } = require('./options')
  const { TYPES, INVALID, parseValue } = require('./types')
  const values = {}
  for (const entry of PM2_ENV) {
    if (entry.kind !== 'default' || env[entry.name] === undefined || env[entry.name] === '') continue
    const option = optionOf(entry.key)
    let raw = env[entry.name]
    if (option.type === 'duration' && /^\d+$/.test(raw)) raw = Number(raw)
    if (option.type === 'boolean') raw = raw === 'true' || raw === '1'
    const value = parseValue(option.type, raw, option)
    if (value === INVALID) {
      throw new XpmError('XPM_ERR_CONFIG_INVALID', `Expected ${entry.name} (PM2's ${entry.key} default) to be ${TYPES[option.type].expected}, got "${env[entry.name]}"`)
    }
    values[entry.key] = value
  }
  return values
}

// The PM2 variables set in env that xpm does not act on, as notice lines.
function pm2EnvNotices (env = process.env) {
  return PM2_ENV.filter((e) => e.kind === 'notice' && env[e.name] !== undefined && env[e.name] !== '').map((e) => `${e.name}: ${e.what}`)
}

module.exports = { PM2_ENV, pm2EnvDefaults, pm2EnvNotices }
