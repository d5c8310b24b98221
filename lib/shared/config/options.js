'use strict'

// Every app option, defined once. This table drives ecosystem-file validation (validate.js),
// normalization into the camelCase spec (normalize.js), the daemon's check of specs from the
// socket and their defaults (validate-spec.js, spec-defaults.js), the `xpm start` flags
// (lib/cli/start-options.js), the reference table in docs/ecosystem.md and the PM2 key table in
// docs/migrating-from-pm2.md (render-docs.js).
//
// key: the PM2 name used in files; aliases: other names PM2 documents for it. Every key and
// alias is also accepted in camelCase (`ignoreWatch`, `killTimeout`), as PM2 accepts it.
// target: where it lands in the normalized spec; null: the CLI applies it while building the
// spec (it changes the name, the environment or the log paths) and the spec has no field for it.
// type: a parser in types.js. default: the spec value when neither file nor flag gives one
// (undefined: computed, see normalize.js). flag: the `xpm start` flag, if any; flagHelp: its help
// text when the file description does not fit the command line. min, max: bounds of a number
// where they differ from the type's (types.js; durations are at most 24d, see limits.js).
// into, map: the value feeds another option (disable_source_map_support: true is
// source_map_support: false).
// pm2: how xpm differs from PM2 for this key (none: the same meaning); pm2Default: PM2's
// default where it differs from xpm's. notice: a PM2 key xpm accepts without acting on it, and
// what it does instead; the CLI says it once per file (not when the value is `quietWhen`, which
// asks for nothing xpm lacks). The description ends in "(xpm)" for options PM2 does not have.
const { KiB, MiB } = require('./limits')
const DAY = 86_400_000

const PLUS = 'a PM2 Plus (Keymetrics) feature; xpm\'s own agent reports heap and event-loop figures (`xpm monit`, `metrics: false` turns it off); ignored'

const OPTIONS = [
  // What to run
  { key: 'name', target: 'name', type: 'name', flag: '-n, --name <name>', description: 'App name, unique per daemon (default: the script file name without extension)', pm2: 'Names `all`, or with slashes or control characters are refused: they would break targets or log file names. A name of digits is allowed; a target that is both an id and a name means the id, as in PM2' },
  { key: 'name_prefix', target: null, type: 'string', description: 'Prefix of the app name: the app is called `<name_prefix>:<name>`' },
  { key: 'namespace', target: 'namespace', type: 'name', default: 'default', flag: '--namespace <name>', description: 'Group of apps: `xpm list` shows it and commands accept it as a target, like an app name' },
  { key: 'script', aliases: ['exec', 'cmd', 'command'], target: 'script', type: 'path', required: true, description: 'Script or executable to run, relative to cwd; a bare name is looked up on PATH (`npm`, `next`), and a whole command line (`"npm run start"`) runs as that command', pm2: 'A script found on PATH runs under Node when its first line names node (so `npm` can run in cluster mode), else as itself' },
  { key: 'args', target: 'args', type: 'args', default: [], description: 'Arguments for the script: an array or one string split like a shell (CLI: after `--`)' },
  { key: 'cwd', target: 'cwd', type: 'path', flag: '--cwd <dir>', flagHelp: 'working directory of the app (default: the current folder)', description: 'Working directory of the app, relative to the ecosystem file (default: the file\'s folder)', pm2: 'Relative to the ecosystem file, not to the shell\'s folder' },
  { key: 'interpreter', aliases: ['exec_interpreter'], target: 'interpreter', type: 'string', flag: '--interpreter <bin>', description: '"node", "none" (run the script itself) or a program such as "python3" (default: from the script\'s extension and first line)', pm2: 'By extension as PM2 (.sh bash, .py python3, .rb ruby, .php php, .pl perl, .coffee coffee, .ls lsc; .ts with Node when it strips types, else tsx, ts-node or bun); an executable without extension runs as itself unless its first line names node' },
  { key: 'node_args', aliases: ['interpreter_args'], target: 'nodeArgs', type: 'args', default: [], nullable: true, flag: '--node-args <args>', description: 'Flags for the interpreter, e.g. "--max-old-space-size=512"' },
  { key: 'source_map_support', target: 'sourceMapSupport', type: 'boolean', default: false, flag: '--source-map-support', description: 'Run Node with --enable-source-maps, so stack traces point into your sources (default: on when the script has a .map file next to it, as PM2)', pm2: 'Node\'s own source maps (--enable-source-maps), not the source-map-support module' },
  { key: 'disable_source_map_support', target: null, into: 'source_map_support', map: (v) => !v, type: 'boolean', flag: '--disable-source-map-support', description: 'true is source_map_support: false' },
  { key: 'instances', target: 'instances', type: 'instances', flag: '-i, --instances <n>', description: 'Number of instances; "max" or 0: one per CPU the app may use (the cgroup CPU quota and cpuset count; `xpm show` says which); -1: one fewer (default: 1)' },
  { key: 'exec_mode', target: 'execMode', type: 'execMode', flag: '--exec-mode <mode>', description: '"cluster" or "fork" (default: cluster when instances is given and the interpreter is node)', pm2Default: '"fork"', pm2: 'instances on a Node script means cluster mode, as with `pm2 start -i`' },
  { key: 'reuse_port', target: 'reusePort', type: 'boolean', default: false, flag: '--reuse-port', flagHelp: 'cluster workers listen on their port themselves (SO_REUSEPORT): new connections do not pass through the daemon (Linux, Node >= 22.12)', description: 'Cluster mode: each worker listens on its TCP port itself with SO_REUSEPORT and the kernel spreads new connections, instead of the daemon accepting them and handing them out in turn; Linux and Node 22.12 or later only, see [reload.md](reload.md#reuse_port) (xpm)' },
  { key: 'depends_on', target: 'dependsOn', type: 'list', default: [], nullable: true, description: 'Apps of the same file to start first: this app starts once they are ready (a one-shot job with autorestart: false: once it has exited 0), and stops before them (xpm)' },
  { key: 'uid', aliases: ['user'], target: 'uid', type: 'userId', default: null, nullable: true, flag: '--uid <user>', description: 'Run the app as this user (a name or a uid; names from /etc/passwd, else the system\'s user database through getent: LDAP, SSSD…); needs the daemon to run as root' },
  { key: 'gid', target: 'gid', type: 'userId', default: null, nullable: true, flag: '--gid <group>', description: 'Run the app with this group (a name or a gid); needs the daemon to run as root' },
  // Environment
  { key: 'env', target: 'env', type: 'env', default: {}, description: 'Environment variables, merged over the CLI\'s environment at start; objects are passed as JSON text' },
  { key: 'env_<name>', target: 'env', type: 'env', pattern: true, description: 'Merged over env when started with `--env <name>`' },
  { key: 'env_file', target: null, type: 'path', flag: '--env-file <file>', description: 'A dotenv file whose variables are merged over env (xpm)' },
  { key: 'filter_env', target: null, type: 'filterEnv', flag: '--filter-env [prefixes]', flagHelp: 'leave out the CLI\'s variables starting with these comma-separated prefixes; alone: all of them', description: 'true: the app gets none of the CLI\'s environment, only its own env; a prefix or a list of prefixes: leave out the CLI\'s variables whose names start with one' },
  { key: 'append_env_to_name', target: null, type: 'boolean', description: 'With `--env <name>`, the app is called `<name>-<env name>`' },
  { key: 'instance_var', target: 'instanceVar', type: 'envName', default: 'NODE_APP_INSTANCE', description: 'Name of the variable that holds the instance number (0 … N-1): any name the environment can hold, such as "newonlyfans-backend"' },
  { key: 'increment_var', target: 'incrementVar', type: 'envName', default: null, nullable: true, description: 'A variable that grows by one per instance, from its value in env (or port): PORT 4000 gives 4000, 4001, 4002' },
  { key: 'port', target: null, type: 'port', description: 'Sets PORT in the environment (env_<name> may still override it)' },
  // Restarts
  { key: 'autostart', target: 'autostart', type: 'boolean', default: true, flag: '--no-autostart', flagHelp: 'register the app stopped; `xpm start <name>` starts it', description: 'false: starting the file registers the app, stopped; `xpm start <name>` starts it' },
  { key: 'autorestart', target: 'autorestart', type: 'boolean', default: true, flag: '--no-autorestart', flagHelp: 'do not restart the app when it exits', description: 'Restart the app when it exits' },
  { key: 'max_restarts', target: 'maxRestarts', type: 'count', max: 100000, default: 16, flag: '--max-restarts <n>', description: 'Crashes allowed within restart_window before the app is marked errored (however long each run lasted)', pm2: 'Also counted over restart_window, so an app that crashes every few seconds ends errored instead of looping forever' },
  { key: 'restart_window', target: 'restartWindow', type: 'duration', default: 60000, description: 'Sliding window over which max_restarts is counted (xpm)' },
  { key: 'min_uptime', target: 'minUptime', type: 'duration', default: 1000, flag: '--min-uptime <duration>', description: 'A run shorter than this counts as unstable' },
  { key: 'restart_delay', target: 'restartDelay', type: 'duration', default: 0, flag: '--restart-delay <duration>', description: 'Fixed delay before each restart' },
  { key: 'exp_backoff_restart_delay', target: 'expBackoffRestartDelay', type: 'duration', default: 100, flag: '--exp-backoff-restart-delay <duration>', description: 'Base of the exponential backoff between unstable restarts (doubles each time)', pm2Default: '0 (off)', pm2: 'Always on: an app that crashes at boot is not restarted in a tight loop' },
  { key: 'max_backoff_delay', target: 'maxBackoffDelay', type: 'duration', default: 15000, description: 'Cap of the exponential backoff (xpm)' },
  { key: 'stop_exit_codes', target: 'stopExitCodes', type: 'exitCodes', default: [], flag: '--stop-exit-codes <codes>', flagHelp: 'comma-separated exit codes that mean "finished", not crashed: no restart', description: 'Exit codes that mean "finished", not crashed: no restart' },
  { key: 'cron_restart', aliases: ['cron'], target: 'cronRestart', type: 'cron', default: null, nullable: true, flag: '-c, --cron-restart <expr>', description: 'Restart on a cron schedule, e.g. "0 3 * * *"', pm2: 'An expression that never fires (February 30th) is an error' },
  { key: 'max_memory_restart', target: 'maxMemoryRestart', type: 'bytes', min: MiB, default: null, nullable: true, flag: '--max-memory-restart <size>', description: 'Restart an instance whose memory (RSS) goes above this size', pm2: 'A graceful reload in cluster mode; repeated memory restarts count toward errored' },
  { key: 'force', target: 'force', type: 'boolean', default: false, description: 'Accepted for PM2: starting a file restarts its running apps with the file as it is (PM2\'s smart start), with or without it' },
  // Stopping and readiness
  { key: 'kill_timeout', target: 'killTimeout', type: 'duration', default: 5000, flag: '-k, --kill-timeout <duration>', description: 'Time between the stop signal and SIGKILL', pm2Default: '1600 (1.6s)' },
  { key: 'kill_signal', target: 'killSignal', type: 'signal', default: 'SIGINT', description: 'Signal sent to stop the app' },
  { key: 'kill_retry_time', target: 'killRetryTime', type: 'duration', min: 10, default: 100, description: 'How often a stop checks whether the app\'s processes are gone' },
  { key: 'treekill', target: 'treekill', type: 'boolean', default: true, flag: '--no-treekill', flagHelp: 'stop only the app\'s own process, not what it started', description: 'Stop everything the app started with it, and end what an app process leaves behind when it exits (a crash, a self-daemonizing exit); false: a stop signals only the app\'s own process, and its children outlive it' },
  { key: 'listen_timeout', target: 'listenTimeout', type: 'duration', default: 8000, flag: '--listen-timeout <duration>', description: 'Time a new instance has to become ready (listening, or `ready` with wait_ready)', pm2Default: '3000 (3s)', pm2: 'With wait_ready, an instance that sent no `ready` is taken as ready at the timeout, with a warning, as in PM2; one that fails its readiness probe counts as a crash. Without a probe, a start or restart still booting (or not yet listening) at the timeout is taken as online with a warning, as PM2 counts a fork app online at spawn; a reload replacement that is not ready is rolled back' },
  { key: 'wait_ready', target: 'waitReady', type: 'boolean', default: false, flag: '--wait-ready', description: 'Ready means the app called process.send(\'ready\'), not just listening; one that never does is taken as ready at listen_timeout, with a warning (as PM2)' },
  { key: 'shutdown_with_message', target: 'shutdownWithMessage', type: 'boolean', default: false, flag: '--shutdown-with-message', description: 'Stop by sending the message \'shutdown\' over IPC instead of a signal' },
  { key: 'pid_file', aliases: ['pid'], target: 'pidFile', type: 'path', default: null, nullable: true, flag: '-p, --pid <file>', description: 'Write the pid of each process to this file, with -<instance> before the extension (as PM2: `-p echo.pid` writes echo-0.pid); default XPM_HOME/pids/<name>-<instance>.pid', pm2Default: '~/.pm2/pids/<name>-<id>.pid', pm2: 'The default file is named after the instance number, not the process id, as the log files are' },
  // Health: probes, watchdog, hooks (docs/health.md)
  { key: 'readiness', target: 'readiness', type: 'probe', default: null, nullable: true, flag: '--readiness <probe>', flagHelp: 'probe that gates online: http:/healthz, http:3000/healthz, https:/healthz, tcp:3000, exec:<command> or a JSON object (docs/health.md)', description: 'Probe that must pass before a process is online, at start and for each reload replacement: { http: \'/healthz\' }, { https: \'/healthz\' }, { tcp: 3000 } or { exec: \'cmd\' } (xpm)' },
  { key: 'liveness', target: 'liveness', type: 'probe', default: null, nullable: true, flag: '--liveness <probe>', flagHelp: 'probe whose failures restart the process gracefully (same forms as --readiness)', description: 'Probe whose failure_threshold failures in a row restart the process gracefully, reason `liveness: …` (xpm)' },
  { key: 'max_event_loop_delay', target: 'maxEventLoopDelay', type: 'duration', min: 100, default: null, nullable: true, flag: '--max-event-loop-delay <duration>', description: 'Watchdog: replace a Node worker whose event-loop delay (p99) stays above this for a whole window, or that stops reporting (xpm)' },
  { key: 'max_heap', target: 'maxHeap', type: 'bytes', min: MiB, default: null, nullable: true, flag: '--max-heap <size>', description: 'Replace a Node worker whose V8 heap in use stays above this size (xpm)' },
  { key: 'on_event', target: 'onEvent', type: 'hooks', default: null, nullable: true, flag: '--on-event <command>', flagHelp: 'command run on crash, errored, policy restart and failed reload, the event as JSON on stdin', description: 'Commands run on crash, errored, policy restart and reload failure, the event as JSON on stdin and in XPM_EVENT_* variables (xpm)' },
  // Logs
  { key: 'out_file', aliases: ['output', 'out_log', 'out'], target: 'logs.outFile', type: 'logPath', default: null, nullable: true, flag: '-o, --output <file>', description: 'Standard output log file (default: <XPM_HOME>/logs/<name>-out.log); "/dev/null" or "NULL": none' },
  { key: 'error_file', aliases: ['err_file', 'error', 'err_log', 'err'], target: 'logs.errorFile', type: 'logPath', default: null, nullable: true, flag: '-e, --error <file>', description: 'Standard error log file (default: <XPM_HOME>/logs/<name>-error.log); "/dev/null" or "NULL": none' },
  { key: 'log_file', aliases: ['log'], target: 'logs.logFile', type: 'logFile', default: null, nullable: true, flag: '-l, --log [file]', description: 'Also write both streams to one combined file (true: <XPM_HOME>/logs/<name>.log)' },
  { key: 'disable_logs', target: null, type: 'boolean', flag: '--disable-logs', flagHelp: 'no log files at all (the lines are still shown by `xpm logs` while they are in memory)', description: 'true: no log files at all (the lines are still shown by `xpm logs` while they are in memory)' },
  { key: 'merge_logs', aliases: ['combine_logs'], target: 'logs.perInstance', type: 'boolean', flag: '--merge-logs', flagHelp: 'one log file pair for all instances (default: one pair per instance in cluster mode or with several instances, as PM2)', description: 'One log file pair for all instances; false: one pair per instance, `<name>-out-<instance>.log`, and a file you name gets `-<instance>` only when it ends in `.log`, as PM2 (default: false in cluster mode or with several instances, true for a single fork)' },
  { key: 'log_date_format', target: 'logs.dateFormat', type: 'dateFormat', default: null, nullable: true, flag: '--log-date-format <fmt>', description: 'Format of the line timestamps, e.g. "YYYY-MM-DD HH:mm:ss" (default: ISO 8601)' },
  { key: 'time', target: 'logs.time', type: 'boolean', default: false, flag: '--time', description: 'Prefix every log line with a timestamp' },
  { key: 'log_type', target: 'logs.json', type: 'logType', default: 'raw', flag: '--log-type <type>', description: '"raw" lines or "json" lines {app, instance, pid, stream, time, message}' },
  { key: 'log_max_size', target: 'logs.rotate.size', type: 'bytes', min: KiB, default: 10485760, flag: '--log-max-size <size>', description: 'Rotate a log file when it reaches this size (xpm)' },
  { key: 'log_max_files', target: 'logs.rotate.maxFiles', type: 'count', max: 1000, default: 10, flag: '--log-max-files <n>', description: 'Rotated files kept per log (xpm)' },
  { key: 'log_interval', target: 'logs.rotate.interval', type: 'duration', max: 365 * DAY, default: null, nullable: true, flag: '--log-interval <duration>', description: 'Also rotate on this interval, e.g. "1d" (xpm)' },
  { key: 'log_compress', target: 'logs.rotate.compress', type: 'boolean', default: false, flag: '--log-compress', description: 'Gzip rotated log files (xpm)' },
  // Monitoring and watching
  { key: 'metrics', target: 'metrics', type: 'boolean', default: true, flag: '--no-metrics', flagHelp: 'turn off the heap and event-loop reports of the agent (CPU and memory are still sampled)', description: 'Heap and event-loop reports from the agent preloaded into Node workers; the agent itself stays, for the reload drain (xpm)' },
  { key: 'otel', target: 'otel', type: 'otel', default: null, nullable: true, flag: '--otel [endpoint]', flagHelp: 'OpenTelemetry: traces from the app with no code change, and its process figures and log lines from the daemon, over OTLP (to this endpoint, else the OTEL_* variables\'; docs/otel.md)', description: 'OpenTelemetry, with no code change: true, an endpoint URL, or { traces, metrics, logs, endpoint, protocol, headers, sampler }; the OTEL_* variables are honoured, see [otel.md](otel.md) (xpm)', pm2: 'PM2 7\'s tracing exports to PM2\'s own service only; xpm speaks OTLP to any collector' },
  { key: 'watch', target: 'watch', type: 'watch', default: false, flag: '--watch [paths]', flagHelp: 'restart when files change: in the cwd, or in these comma-separated paths', description: 'Restart when files change: true (the cwd), a path or a list of paths', pm2: 'A graceful reload in cluster mode' },
  { key: 'ignore_watch', target: 'ignoreWatch', type: 'list', default: [], flag: '--ignore-watch <paths>', description: 'Paths or globs not to watch (node_modules and .git are always ignored)', pm2: 'Globs and paths rather than regular expressions' },
  { key: 'watch_delay', target: 'watchDelay', type: 'duration', default: 1000, flag: '--watch-delay <duration>', flagHelp: 'wait this long after the last change before restarting: 500ms, 2s, or a bare number of seconds as PM2 reads it (default: 1s)', description: 'Wait this long after the last change before restarting' },
  { key: 'watch_options', target: null, type: 'object', description: 'chokidar options in PM2: `ignored` adds to ignore_watch; the others do not apply to xpm\'s watcher (fs.watch), which says so once' },
  // PM2 keys that have nothing to do in xpm: accepted, with one notice
  { key: 'windowsHide', target: null, type: 'any', notice: null, description: 'Hides console windows on Windows; nothing to do on Linux' },
  { key: 'vizion', target: null, type: 'any', quietWhen: false, notice: 'xpm does not collect git metadata of apps (PM2\'s vizion); ignored', flag: '--no-vizion', description: 'PM2\'s git metadata of the app' },
  { key: 'post_update', target: null, type: 'any', notice: 'xpm does not pull or update code on its own (PM2 Plus); ignored — `xpm deploy` ships releases (docs/deploy.md)', description: 'Commands PM2 Plus runs after an update' },
  { key: 'pmx', target: null, type: 'any', quietWhen: false, notice: PLUS, flag: '--no-pmx', description: 'PM2\'s @pm2/io wrapper' },
  { key: 'automation', target: null, type: 'any', quietWhen: false, flag: '--no-automation', flagHelp: 'accepted for PM2 scripts; xpm has no PM2 Plus wrapper to turn off', notice: PLUS, description: 'PM2\'s @pm2/io wrapper' },
  { key: 'trace', target: null, type: 'any', quietWhen: false, notice: 'transaction tracing is a PM2 Plus feature; xpm traces with OpenTelemetry instead (`otel: true`, docs/otel.md); ignored', flag: '--trace', description: 'PM2 Plus transaction tracing' },
  { key: 'disable_trace', target: null, type: 'any', quietWhen: true, notice: 'transaction tracing is a PM2 Plus feature; xpm traces with OpenTelemetry instead (`otel: true`, docs/otel.md); ignored', flag: '--disable-trace', description: 'PM2 Plus transaction tracing' },
  { key: 'v8', target: null, type: 'any', quietWhen: false, notice: PLUS, flag: '--v8', description: 'PM2 Plus V8 metrics' },
  { key: 'event_loop_inspector', target: null, type: 'any', quietWhen: false, notice: PLUS, flag: '--event-loop-inspector', description: 'PM2 Plus event-loop inspector' },
  { key: 'deep_monitoring', target: null, type: 'any', quietWhen: false, notice: PLUS, flag: '--deep-monitoring', description: 'PM2 Plus deep monitoring' },
  { key: 'io', target: null, type: 'any', notice: 'PM2 Plus (@pm2/io) settings; ignored', description: 'PM2 Plus settings' },
  { key: 'install_url', target: null, type: 'any', notice: 'xpm has no module system (PM2 modules are installed from it); ignored', description: 'Where PM2 installs a module from' },
  { key: 'write', target: null, type: 'any', notice: 'it belongs to PM2 modules, which xpm does not have; ignored', description: 'A setting of PM2 modules' },
  { key: 'username', target: null, type: 'any', notice: 'PM2 records who started the app; xpm runs apps as the daemon\'s user, or as uid and gid; ignored', description: 'Who started the app, recorded by PM2' },
  { key: 'execute_command', target: null, type: 'any', quietWhen: false, flag: '-x, --execute-command', flagHelp: 'accepted for PM2 scripts (fork mode); xpm picks the mode from exec_mode and instances', notice: 'xpm picks the mode from exec_mode and instances, and runs a command line given as script; ignored', description: 'PM2\'s switch to run the script as a command' }
]

// Top-level keys of an ecosystem file (load-ecosystem.js), for the migration guide's table.
const FILE_KEYS = [
  { key: 'apps', description: 'The apps: an array, or one app object' },
  { key: 'pm2', description: 'Read as apps (older PM2 files)' },
  { key: 'static', description: 'PM2\'s static file servers: each `{ path, port, host, spa, basic_auth: { username, password }, name }` is an app serving that folder, as `xpm serve` starts it' },
  { key: 'deploy', description: 'PM2\'s deploy targets: read by `xpm deploy` (ssh, git, the hooks; docs/deploy.md#xpm-deploy-pm2-deploy-over-ssh-and-git); `--env <env>` also merges `deploy.<env>.env` under the apps\' env, as PM2 does' }
]

// PM2's camelCase spelling of a key: kill_timeout → killTimeout (parts of one letter stay as they are).
function camelCase (key) {
  return key.split('_').map((part, i) => i > 0 && part.length > 1 ? part[0].toUpperCase() + part.slice(1) : part).join('')
}

const BY_KEY = new Map() // every name a file may use → its option
const NAMES = [] // the names PM2 documents, for suggestions (camelCase spellings fold into them)
for (const option of OPTIONS) {
  if (option.pattern) continue
  for (const name of [option.key, ...(option.aliases || [])]) {
    BY_KEY.set(name, option)
    NAMES.push(name)
  }
}
for (const name of NAMES) {
  const camel = camelCase(name)
  if (!BY_KEY.has(camel)) BY_KEY.set(camel, BY_KEY.get(name))
}
const BY_OPTION_KEY = new Map(OPTIONS.map((o) => [o.key, o]))

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

// The option of a canonical key ('kill_timeout').
function optionOf (key) {
  return BY_OPTION_KEY.get(key) ?? null
}

function allKeys () {
  return [...NAMES]
}

module.exports = { OPTIONS, FILE_KEYS, findOption, optionOf, allKeys, flagAttribute, camelCase }
