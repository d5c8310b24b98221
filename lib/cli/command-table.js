'use strict'

// commander's command table: each command's name, aliases, flags and help, in four groups. The
// actions live in lib/cli/commands/ and are required only when their command runs (lazy), so
// `xpm ping` never loads table or UI code. PM2's vocabulary is the contract: every PM2 command
// is here, implemented or answered with one notice (commands/notices.js), and
// docs/migrating-from-pm2.md lists them all. act(fn, options): the action run with the
// program's io (run.js).

const TARGETS = '<targets...>'
const WHAT = 'apps by name, id, namespace, script, /regex/ or "all", or the apps of an ecosystem file; several at once'

// withStartOptions: `start` gets the app option table's flags (loaded only when start or help runs)
function addCommands (program, { act, withStartOptions }) {
  const lazy = (file, name) => (...args) => require(`./commands/${file}`)[name](...args)
  addLifecycleCommands(program, { act, lazy, withStartOptions })
  addReadingCommands(program, { act, lazy })
  addDaemonCommands(program, { act, lazy })
  require('./fleet/options').addFleetOptions(program, { act, lazy }) // --host/--hosts
  return addNoticeCommands(program, { act })
}

// start, stop, delete, restart, reload, startOr*, apply, scale, sendSignal, reset
function addLifecycleCommands (program, { act, lazy, withStartOptions }) {
  const start = program.command('start [targets...]')
    .description('start scripts, ecosystem files (ecosystem.config.js without a target), `-` (apps as JSON on stdin), or stopped apps by name, id, namespace or /regex/')
    .usage('<script|ecosystem|-|name|id|namespace...> [options] [-- script args]')
  if (withStartOptions) require('./start-options').addStartOptions(start)
  start.option('--json', 'print the started processes as JSON')
    .action(act(lazy('start', 'start')))

  program.command(`stop ${TARGETS}`)
    .description(`stop ${WHAT}`)
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: the environment (accepted; a stop does not use it)')
    .option('--watch', 'accepted for PM2 (stop watching): a stopped app is never watched')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('lifecycle', 'stop')))
  program.command(`delete ${TARGETS}`).alias('del')
    .description(`stop and forget ${WHAT}`)
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: the environment (accepted; a delete does not use it)')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('lifecycle', 'delete')))

  const { addChangeOptions } = require('./spec-changes')
  const specOptions = (cmd, json) => addChangeOptions(cmd)
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: merge env_<name> over env')
    .option('-a, --update-env', 'give the new processes the CLI\'s current environment')
    .option('--json', json)
  specOptions(program.command(`restart ${TARGETS}`), 'print the result as JSON')
    .description(`stop then start ${WHAT} (an ecosystem file also starts its apps that are not running)`)
    .action(act(lazy('lifecycle', 'restart')))
  specOptions(program.command(`reload ${TARGETS}`).alias('gracefulReload'), 'print the steps as JSON lines')
    .description(`replace the workers one at a time without dropping a request (fork mode: restart) of ${WHAT}; an ecosystem file also starts its apps that are not running`)
    .action(act(lazy('lifecycle', 'reload')))
  for (const [name, what] of [['startOrRestart', 'restart'], ['startOrReload', 'reload'], ['startOrGracefulReload', 'reload']]) {
    specOptions(program.command(`${name} <ecosystem...>`), what === 'reload' ? 'print the steps as JSON lines' : 'print the result as JSON')
      .description(`start the apps of an ecosystem file that are not running, ${what} the others with the file's spec`)
      .action(act(lazy('lifecycle', name)))
  }
  program.command('apply <file>')
    .description('make the daemon run what an ecosystem file says: print the plan (start, reload, restart, delete), then carry it out')
    .option('--dry-run', 'print the plan only: exit 0 when nothing would change, 3 when something would')
    .option('--prune', 'also delete the apps the daemon manages that the file does not name')
    .option('--only <names>', 'only these apps of the file (comma-separated)')
    .option('--env <name>', 'merge env_<name> over env')
    .option('--json', 'print the plan and the outcome as JSON')
    .action(act(lazy('apply', 'apply')))

  program.command('scale <app> <count>')
    .description('add or remove instances of an app: 4, +2 or -1 (the others keep running)')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('scale', 'scale')))
  program.command('sendSignal <signal> <targets...>')
    .description('send a signal such as SIGUSR2 to the processes of apps, process ids, namespaces or "all"')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('signal', 'sendSignal')))
  program.command(`reset ${TARGETS}`)
    .description('zero the restart counters and crash history of apps, process ids, namespaces or "all"')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('reset', 'reset')))
}

// list, jlist, prettylist, show, why, env, id, pid, logs, flush, reloadLogs, monit, web, serve
function addReadingCommands (program, { act, lazy }) {
  program.command('list').aliases(['ls', 'l', 'ps', 'status'])
    .description('list the processes')
    .option('--sort <field>', 'sort by name, id, pid, memory, cpu, status, uptime or restarts; :asc or :desc (name:desc)')
    .option('--json', 'print JSON only')
    .action(act(lazy('list', 'list')))
  program.command('jlist').description('list the processes as JSON on one line')
    .option('--pm2', 'in PM2\'s shape (pm_id, monit, pm2_env.status…, with the environment) for scripts written for `pm2 jlist`')
    .action(act(lazy('list', 'jlist')))
  program.command('prettylist').description('list the processes as indented JSON')
    .option('--pm2', 'in PM2\'s shape')
    .action(act(lazy('list', 'prettylist')))
  program.command(`show ${TARGETS}`).aliases(['describe', 'desc'])
    .description('details of apps or processes')
    .option('--json', 'print JSON only')
    .action(act(lazy('list', 'show')))
  program.command('why <target>')
    .description('why the processes of an app (or one process id) exited and restarted, newest first')
    .option('--limit <n>', 'how many events to print', parseCount, 20)
    .option('--json', 'print the journal entries as JSON')
    .action(act(lazy('why', 'why')))
  program.command('env <id>')
    .description('the environment a process gets, one NAME: value line each')
    .option('--json', 'print it as a JSON object')
    .action(act(lazy('list', 'env')))
  program.command('id <name>').description('the process ids of an app, as a JSON array').action(act(lazy('list', 'id')))
  program.command('pid [target]').description('the pids of the running processes (of an app, id or namespace), one per line').action(act(lazy('list', 'pid')))

  program.command('logs [targets...]')
    .description('print the last lines of each log file, then stream new ones')
    .option('--lines <n>', 'how many past lines of each file to print', parseCount, 15)
    .option('--out', 'only standard output')
    .option('--err', 'only standard error')
    .option('--raw', 'lines without the id|name| prefix')
    .option('--json', 'one JSON object per line')
    .option('--format', 'key=value lines: app= id= type= message= (timestamp= first with --timestamp)')
    .option('--timestamp [format]', 'prefix each line with its time (default format YYYY-MM-DD-HH:mm:ss)')
    .option('--highlight [text]', 'highlight this text (on a terminal)')
    .option('--nostream', 'print the past lines and exit')
    .action(act(lazy('logs', 'logs')))
  program.command('flush [targets...]').description('empty the log files (of these apps)').action(act(lazy('logs', 'flush')))
  program.command('reloadLogs').description('reopen the log files (after an external logrotate)').action(act(lazy('logs', 'reloadLogs')))

  program.command('monit').aliases(['dashboard', 'dash', 'imonit']).description('live dashboard of CPU, memory and event-loop latency')
    .option('--host <user@host[:port]>', 'the processes of this host over ssh (repeatable; docs/fleet.md)', (value, list = []) => [...list, value])
    .option('--hosts <name>', 'the processes of the hosts of the ecosystem file\'s deploy.<name> section, or of XPM_HOME/hosts.json')
    .action(act(lazy('monit', 'monit')))
  require('./http-commands').addHttpCommands(program, { act, lazy }) // web, serve
}

// ping, kill, report, examples, save, cleardump, resurrect, update, startup, unstartup,
// ecosystem, import, set, multiset, unset, get
function addDaemonCommands (program, { act, lazy }) {
  program.command('bridge', { hidden: true }).description('(run by fleet commands over ssh) join stdin/stdout to the daemon socket')
    .action(act((ctx) => require('./fleet/bridge').bridge(ctx)))
  program.command('ping').description('start the daemon if needed and check that it answers').action(act(lazy('daemon', 'ping')))
  program.command('kill').description('stop every app gracefully, then the daemon').action(act(lazy('daemon', 'kill'), { autoStart: false }))
  program.command('report').description('versions, the daemon and the processes, for a bug report').action(act(lazy('daemon', 'report')))
  program.command('examples').description('common commands').action(act(lazy('daemon', 'examples')))

  program.command('save').alias('dump').description('save the app list (specs, instances, online/stopped) for `xpm resurrect` and boot')
    .option('-f, --force', 'save even an empty list over a non-empty one')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('save', 'save')))
  program.command('cleardump').description('empty the saved app list (the previous save stays in dump.pm2.bak)')
    .action(act(lazy('save', 'cleardump')))
  program.command('resurrect').description('start the apps of the last `xpm save`; apps already managed are left alone')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('resurrect', 'resurrect')))
  program.command('update').alias('updatePM2').description('replace the daemon by the installed version and restore every app')
    .action(act(lazy('update', 'update'), { autoStart: false }))
  program.command('startup [platform]').description('print a systemd unit that runs the daemon at boot and restores the saved apps (platform: systemd, the only one)')
    .option('--install', 'write the unit and enable it with systemctl')
    .option('-u, --user [name]', 'alone: a systemd user unit (~/.config/systemd/user) instead of a system one; with a name (PM2\'s -u): a system unit that runs the daemon as that user')
    .option('--hp <home>', 'with -u <name>: that user\'s home folder (PM2\'s --hp)')
    .option('--service-name <name>', 'the unit\'s name (default xpm-<user>, or xpm for a user unit)')
    .option('--wait-ip', 'start once the network is online (network-online.target)')
    .action(act(withPlatform('startup')))
  program.command('unstartup [platform]').description('disable and remove the unit written by `xpm startup --install`')
    .option('-u, --user [name]', 'alone: the systemd user unit; with a name: the system unit of that user')
    .option('--service-name <name>', 'the unit\'s name, as given to startup')
    .action(act(withPlatform('unstartup')))

  program.command('deploy [args...]').usage('[file] <env> [command] [options]')
    .description('pm2 deploy\'s `deploy` section over ssh and git: [file] <env> [setup|update|revert [n]|curr|prev|list|exec <cmd>|status|<ref>]; `xpm deploy help`')
    .option('--dry-run', 'print what would run on each host; run nothing')
    .option('--parallel <n>', 'hosts at once (default: all for setup, exec and queries; 1 for a release)')
    .option('--no-revert', 'leave a failed host on the failed release')
    .option('--no-health', 'no `xpm jlist` check of the file\'s apps after post-deploy')
    .option('--health-timeout <seconds>', 'how long the apps have to be online after post-deploy (15)')
    .option('-f, --force', 'deploy even with uncommitted or unpushed changes here')
    .allowUnknownOption(true) // `exec ls -la`: the command's own flags
    .allowExcessArguments(true)
    .action(act(lazy('deploy', 'deploy'), { autoStart: false }))

  program.command('ecosystem [mode]').alias('init')
    .description('write a commented starter ecosystem.config.js in this folder')
    .action(act(lazy('ecosystem', 'init')))

  program.command('import [dump]')
    .description('start the apps PM2 saved (pm2 save: $PM2_HOME/dump.pm2) and write their ecosystem.config.js; PM2 is left untouched')
    .option('-o, --out <file>', 'the ecosystem file to write', 'ecosystem.config.js')
    .option('--force', 'replace the ecosystem file if it exists')
    .option('--no-start', 'only write the ecosystem file')
    .option('--dry-run', 'print the ecosystem file; write and start nothing')
    .option('--json', 'print the result as JSON')
    .action(act(lazy('import', 'importPm2')))

  program.command('set [key] [value]')
    .description('PM2\'s app settings: set <app>:<key> <value> (kept in XPM_HOME/module_conf.json); the app gets them as environment variables and is restarted')
    .action(act(lazy('app-conf', 'set')))
  program.command('multiset <pairs>').description('several settings at once: "<app>:<key> <value> <app>:<key> <value>"')
    .action(act(lazy('app-conf', 'multiset')))
  program.command('unset <key>').description('remove a setting (<app>:<key>) or all of an app\'s (<app>)')
    .action(act(lazy('app-conf', 'unset'), { autoStart: false }))
  program.command('get [key]').aliases(['conf', 'config']).description('print settings: all, an app\'s (<app>) or one (<app>:<key>)')
    .action(act(lazy('app-conf', 'get'), { autoStart: false }))
}

// PM2's commands xpm does not provide: one notice each. Returns their table (kept out of the help).
function addNoticeCommands (program, { act }) {
  const { NOTICES, notice } = require('./commands/notices')
  for (const [name, entry] of Object.entries(NOTICES)) {
    const cmd = program.command(`${name} [args...]`)
      .description(`(PM2) not in xpm: ${entry.text.split(';')[0]}`)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .helpOption(false)
    if (entry.aliases) cmd.aliases(entry.aliases)
    cmd.action(act(notice(name), { autoStart: false }))
  }

  return NOTICES
}

// `xpm startup systemd` as PM2 takes a platform; xpm writes systemd units only.
function withPlatform (name) {
  return async (ctx, { platform, options: opts }) => {
    if (platform !== undefined && !['systemd', 'systemd-user'].includes(platform)) {
      const { XpmError } = require('../shared/errors')
      throw new XpmError('XPM_ERR_NOT_SUPPORTED', `${name} ${platform}: xpm writes systemd units only (PM2's upstart, launchd, openrc, rcd and systemv scripts are not supported)`)
    }
    const o = platform === 'systemd-user' ? { ...opts, user: true } : opts
    return require('./commands/startup')[name](ctx, { options: o })
  }
}

function parseCount (value) {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) {
    const { InvalidArgumentError } = require('commander')
    throw new InvalidArgumentError(`Expected a whole number, got "${value}".`)
  }
  return n
}

module.exports = { addCommands }
