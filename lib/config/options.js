'use strict'

// Every app option, defined once. This table drives ecosystem-file validation (validate.js),
// normalization into the camelCase spec (normalize.js), the `xpm start` flags
// (lib/cli/start-options.js) and the reference table in docs/ecosystem.md (render-docs.js).
//
// key: the PM2 name used in files. target: where it lands in the normalized spec.
// type: a parser in types.js. default: the spec value when neither file nor flag gives one
// (undefined: computed, see normalize.js). flag: the `xpm start` flag, if any; flagHelp: its help
// text when the file description does not fit the command line. min, max: bounds of a number
// where they differ from the type's (types.js; durations are at most 24d, see limits.js).
const { KiB, MiB } = require('./limits')
const DAY = 86_400_000

const OPTIONS = [
  // What to run
  { key: 'name', target: 'name', type: 'name', flag: '--name <name>', description: 'App name, unique per daemon (default: the script file name without extension)' },
  { key: 'script', target: 'script', type: 'path', required: true, description: 'Script or executable to run, relative to cwd' },
  { key: 'args', target: 'args', type: 'args', default: [], description: 'Arguments for the script: an array or one string split like a shell (CLI: after `--`)' },
  { key: 'cwd', target: 'cwd', type: 'path', flag: '--cwd <dir>', flagHelp: 'working directory of the app (default: the current folder)', description: 'Working directory of the app, relative to the ecosystem file (default: the file\'s folder)' },
  { key: 'interpreter', target: 'interpreter', type: 'string', flag: '--interpreter <bin>', description: '"node", "none" (run the script itself) or a program such as "python3" (default: from the script\'s extension)' },
  { key: 'node_args', aliases: ['interpreter_args'], target: 'nodeArgs', type: 'args', default: [], flag: '--node-args <args>', description: 'Flags for the interpreter, e.g. "--max-old-space-size=512"' },
  { key: 'instances', target: 'instances', type: 'instances', flag: '-i, --instances <n>', description: 'Number of instances; "max" or 0: one per CPU; -1: one fewer (default: 1)' },
  { key: 'exec_mode', target: 'execMode', type: 'execMode', flag: '--exec-mode <mode>', description: '"cluster" or "fork" (default: cluster when instances is given and the interpreter is node)' },
  // Environment
  { key: 'env', target: 'env', type: 'env', default: {}, description: 'Environment variables, merged over the CLI\'s environment at start' },
  { key: 'env_<name>', target: 'env', type: 'env', pattern: true, description: 'Merged over env when started with `--env <name>`' },
  { key: 'env_file', target: 'env', type: 'path', flag: '--env-file <file>', description: 'A dotenv file whose variables are merged over env (xpm)' },
  // Restarts
  { key: 'autorestart', target: 'autorestart', type: 'boolean', default: true, flag: '--no-autorestart', flagHelp: 'do not restart the app when it exits', description: 'Restart the app when it exits' },
  { key: 'max_restarts', target: 'maxRestarts', type: 'count', max: 100000, default: 16, flag: '--max-restarts <n>', description: 'Crashes allowed within restart_window before the app is marked errored (however long each run lasted)' },
  { key: 'restart_window', target: 'restartWindow', type: 'duration', default: 60000, description: 'Sliding window over which max_restarts is counted (xpm)' },
  { key: 'min_uptime', target: 'minUptime', type: 'duration', default: 1000, flag: '--min-uptime <duration>', description: 'A run shorter than this counts as unstable' },
  { key: 'restart_delay', target: 'restartDelay', type: 'duration', default: 0, flag: '--restart-delay <duration>', description: 'Fixed delay before each restart' },
  { key: 'exp_backoff_restart_delay', target: 'expBackoffRestartDelay', type: 'duration', default: 100, flag: '--exp-backoff-restart-delay <duration>', description: 'Base of the exponential backoff between unstable restarts (doubles each time)' },
  { key: 'max_backoff_delay', target: 'maxBackoffDelay', type: 'duration', default: 15000, description: 'Cap of the exponential backoff (xpm)' },
  { key: 'stop_exit_codes', target: 'stopExitCodes', type: 'exitCodes', default: [], flag: '--stop-exit-codes <codes>', flagHelp: 'comma-separated exit codes that mean "finished", not crashed: no restart', description: 'Exit codes that mean "finished", not crashed: no restart' },
  { key: 'cron_restart', target: 'cronRestart', type: 'cron', default: null, nullable: true, flag: '--cron-restart <expr>', description: 'Restart on a cron schedule, e.g. "0 3 * * *"' },
  { key: 'max_memory_restart', target: 'maxMemoryRestart', type: 'bytes', min: MiB, default: null, nullable: true, flag: '--max-memory-restart <size>', description: 'Restart an instance whose memory (RSS) goes above this size' },
  // Stopping and readiness
  { key: 'kill_timeout', target: 'killTimeout', type: 'duration', default: 5000, flag: '--kill-timeout <duration>', description: 'Time between the stop signal and SIGKILL' },
  { key: 'kill_signal', target: 'killSignal', type: 'signal', default: 'SIGINT', description: 'Signal sent to stop the app' },
  { key: 'listen_timeout', target: 'listenTimeout', type: 'duration', default: 8000, flag: '--listen-timeout <duration>', description: 'Time a new instance has to become ready (listening, or `ready` with wait_ready)' },
  { key: 'wait_ready', target: 'waitReady', type: 'boolean', default: false, flag: '--wait-ready', description: 'Ready means the app called process.send(\'ready\'), not just listening' },
  { key: 'shutdown_with_message', target: 'shutdownWithMessage', type: 'boolean', default: false, flag: '--shutdown-with-message', description: 'Stop by sending the message \'shutdown\' over IPC instead of a signal' },
  // Logs
  { key: 'out_file', aliases: ['output', 'out_log'], target: 'logs.outFile', type: 'path', default: null, nullable: true, flag: '-o, --output <file>', description: 'Standard output log file (default: <XPM_HOME>/logs/<name>-out.log)' },
  { key: 'error_file', aliases: ['err_file', 'error', 'err_log'], target: 'logs.errorFile', type: 'path', default: null, nullable: true, flag: '-e, --error <file>', description: 'Standard error log file (default: <XPM_HOME>/logs/<name>-error.log)' },
  { key: 'log_file', aliases: ['log'], target: 'logs.logFile', type: 'logFile', default: null, nullable: true, flag: '-l, --log [file]', description: 'Also write both streams to one combined file (true: <XPM_HOME>/logs/<name>.log)' },
  { key: 'merge_logs', target: 'logs.perInstance', type: 'boolean', default: true, flag: '--merge-logs', flagHelp: 'one log file pair for all instances (the default; a file can set merge_logs: false)', description: 'One log file pair for all instances; false: one pair per instance' },
  { key: 'log_date_format', target: 'logs.dateFormat', type: 'string', default: null, nullable: true, flag: '--log-date-format <fmt>', description: 'Format of the line timestamps, e.g. "YYYY-MM-DD HH:mm:ss" (default: ISO 8601)' },
  { key: 'time', target: 'logs.time', type: 'boolean', default: false, flag: '--time', description: 'Prefix every log line with a timestamp' },
  { key: 'log_type', target: 'logs.json', type: 'logType', default: 'raw', flag: '--log-type <type>', description: '"raw" lines or "json" lines {app, instance, pid, stream, time, message}' },
  { key: 'log_max_size', target: 'logs.rotate.size', type: 'bytes', min: KiB, default: 10485760, flag: '--log-max-size <size>', description: 'Rotate a log file when it reaches this size' },
  { key: 'log_max_files', target: 'logs.rotate.maxFiles', type: 'count', max: 1000, default: 10, flag: '--log-max-files <n>', description: 'Rotated files kept per log' },
  { key: 'log_interval', target: 'logs.rotate.interval', type: 'duration', max: 365 * DAY, default: null, nullable: true, flag: '--log-interval <duration>', description: 'Also rotate on this interval, e.g. "1d"' },
  { key: 'log_compress', target: 'logs.rotate.compress', type: 'boolean', default: false, flag: '--log-compress', description: 'Gzip rotated log files' },
  // Monitoring and watching
  { key: 'metrics', target: 'metrics', type: 'boolean', default: true, flag: '--no-metrics', flagHelp: 'turn off the heap and event-loop reports of the agent (CPU and memory are still sampled)', description: 'Heap and event-loop reports from the agent preloaded into Node workers (the agent itself stays, for the reload drain)' },
  { key: 'watch', target: 'watch', type: 'watch', default: false, flag: '--watch [paths]', flagHelp: 'restart when files change: in the cwd, or in these comma-separated paths', description: 'Restart when files change: true (the cwd), a path or a list of paths' },
  { key: 'ignore_watch', target: 'ignoreWatch', type: 'list', default: [], flag: '--ignore-watch <paths>', description: 'Paths or globs not to watch (node_modules and .git are always ignored)' },
  { key: 'watch_delay', target: 'watchDelay', type: 'duration', default: 1000, flag: '--watch-delay <duration>', description: 'Wait this long after the last change before restarting' }
]

const BY_KEY = new Map()
for (const option of OPTIONS) {
  if (option.pattern) continue
  BY_KEY.set(option.key, option)
  for (const alias of option.aliases || []) BY_KEY.set(alias, option)
}

// commander's attribute name for a flag: '--no-metrics' -> 'metrics', '--log-max-size' -> 'logMaxSize'
function flagAttribute (flag) {
  const long = /--(?:no-)?([a-z][a-z0-9-]*)/.exec(flag)[1]
  return long.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}

function findOption (key) {
  if (BY_KEY.has(key)) return BY_KEY.get(key)
  if (/^env_[A-Za-z0-9_-]+$/.test(key)) return OPTIONS.find((o) => o.pattern)
  return null
}

function allKeys () {
  return [...BY_KEY.keys()]
}

module.exports = { OPTIONS, findOption, allKeys, flagAttribute }
