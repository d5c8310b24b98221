'use strict'

// over 300 lines because it is commander's whole command table in one place (each command's
// name, aliases, flags and help); the actions themselves live in lib/cli/commands/.
const { action, configureOutput } = require('./run')

// Commands whose options come from the app option table (lib/config/options.js): it is loaded
// only when one of them runs (or help is asked for), which keeps `xpm list` fast.
const WITH_START_OPTIONS = new Set(['start', 'help'])

// The program: names, flags and help text. Each action lives in lib/cli/commands/ and is
// required only when its command runs, so `xpm ping` never loads table or UI code. PM2's
// vocabulary is the contract: every PM2 command is here, implemented or answered with one
// notice (commands/notices.js), and docs/migrating-from-pm2.md lists them all.
function buildProgram (argv = []) {
  const { Command } = require('commander')
  const program = new Command('xpm')
    .version(require('../../package.json').version, '-v, --version')
    .description('A production process manager for Node.js')
    .usage('<command> [options]')
    .option('-s, --silent', 'hide the [xpm] messages and the table printed after a command (also PM2_SILENT=true)')
    .option('-m, --mini-list', 'print process lists as plain lines, without the box')
    .option('--no-color', 'no colours')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'xpm: ')) })
  program.hook('preAction', (_, command) => configureOutput(command.optsWithGlobals()))
  const lazy = (file, name) => (...args) => require(`./commands/${file}`)[name](...args)

  const start = program.command('start [targets...]')
    .description('start scripts, ecosystem files (ecosystem.config.js without a target), `-` (apps as JSON on stdin), or stopped apps by name, id, namespace or /regex/')
    .usage('<script|ecosystem|-|name|id|namespace...> [options] [-- script args]')
  if (WITH_START_OPTIONS.has(commandWord(argv))) require('./start-options').addStartOptions(start)
  start.option('--json', 'print the started processes as JSON')
    .action(action(lazy('start', 'start')))

  const TARGETS = '<targets...>'
  const WHAT = 'apps by name, id, namespace, script, /regex/ or "all", or the apps of an ecosystem file; several at once'
  program.command(`stop ${TARGETS}`)
    .description(`stop ${WHAT}`)
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: the environment (accepted; a stop does not use it)')
    .option('--watch', 'accepted for PM2 (stop watching): a stopped app is never watched')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('lifecycle', 'stop')))
  program.command(`delete ${TARGETS}`).alias('del')
    .description(`stop and forget ${WHAT}`)
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: the environment (accepted; a delete does not use it)')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('lifecycle', 'delete')))

  const { addChangeOptions } = require('./spec-changes')
  const specOptions = (cmd, json) => addChangeOptions(cmd)
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: merge env_<name> over env')
    .option('-a, --update-env', 'give the new processes the CLI\'s current environment')
    .option('--json', json)
  specOptions(program.command(`restart ${TARGETS}`), 'print the result as JSON')
    .description(`stop then start ${WHAT} (an ecosystem file also starts its apps that are not running)`)
    .action(action(lazy('lifecycle', 'restart')))
  specOptions(program.command(`reload ${TARGETS}`).alias('gracefulReload'), 'print the steps as JSON lines')
    .description(`replace the workers one at a time without dropping a request (fork mode: restart) of ${WHAT}; an ecosystem file also starts its apps that are not running`)
    .action(action(lazy('lifecycle', 'reload')))
  for (const [name, what] of [['startOrRestart', 'restart'], ['startOrReload', 'reload'], ['startOrGracefulReload', 'reload']]) {
    specOptions(program.command(`${name} <ecosystem...>`), what === 'reload' ? 'print the steps as JSON lines' : 'print the result as JSON')
      .description(`start the apps of an ecosystem file that are not running, ${what} the others with the file's spec`)
      .action(action(lazy('lifecycle', name)))
  }
  program.command('apply <file>')
    .description('make the daemon run what an ecosystem file says: print the plan (start, reload, restart, delete), then carry it out')
    .option('--dry-run', 'print the plan only: exit 0 when nothing would change, 3 when something would')
    .option('--prune', 'also delete the apps the daemon manages that the file does not name')
    .option('--only <names>', 'only these apps of the file (comma-separated)')
    .option('--env <name>', 'merge env_<name> over env')
    .option('--json', 'print the plan and the outcome as JSON')
    .action(action(lazy('apply', 'apply')))

  program.command('scale <app> <count>')
    .description('add or remove instances of an app: 4, +2 or -1 (the others keep running)')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('scale', 'scale')))
  program.command('sendSignal <signal> <targets...>')
    .description('send a signal such as SIGUSR2 to the processes of apps, process ids, namespaces or "all"')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('signal', 'sendSignal')))
  program.command(`reset ${TARGETS}`)
    .description('zero the restart counters and crash history of apps, process ids, namespaces or "all"')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('reset', 'reset')))

  program.command('list').aliases(['ls', 'l', 'ps', 'status'])
    .description('list the processes')
    .option('--sort <field>', 'sort by name, id, pid, memory, cpu, status, uptime or restarts; :asc or :desc (name:desc)')
    .option('--json', 'print JSON only')
    .action(action(lazy('list', 'list')))
  program.command('jlist').description('list the processes as JSON on one line')
    .option('--pm2', 'in PM2\'s shape (pm_id, monit, pm2_env.status…, with the environment) for scripts written for `pm2 jlist`')
    .action(action(lazy('list', 'jlist')))
  program.command('prettylist').description('list the processes as indented JSON')
    .option('--pm2', 'in PM2\'s shape')
    .action(action(lazy('list', 'prettylist')))
  program.command(`show ${TARGETS}`).aliases(['describe', 'desc'])
    .description('details of apps or processes')
    .option('--json', 'print JSON only')
    .action(action(lazy('list', 'show')))
  program.command('why <target>')
    .description('why the processes of an app (or one process id) exited and restarted, newest first')
    .option('--limit <n>', 'how many events to print', parseCount, 20)
    .option('--json', 'print the journal entries as JSON')
    .action(action(lazy('why', 'why')))
  program.command('env <id>')
    .description('the environment a process gets, one NAME: value line each')
    .option('--json', 'print it as a JSON object')
    .action(action(lazy('list', 'env')))
  program.command('id <name>').description('the process ids of an app, as a JSON array').action(action(lazy('list', 'id')))
  program.command('pid [target]').description('the pids of the running processes (of an app, id or namespace), one per line').action(action(lazy('list', 'pid')))

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
    .action(action(lazy('logs', 'logs')))
  program.command('flush [targets...]').description('empty the log files (of these apps)').action(action(lazy('logs', 'flush')))
  program.command('reloadLogs').description('reopen the log files (after an external logrotate)').action(action(lazy('logs', 'reloadLogs')))

  program.command('monit').aliases(['dashboard', 'dash', 'imonit']).description('live dashboard of CPU, memory and event-loop latency').action(action(lazy('monit', 'monit')))
  require('./http-commands').addHttpCommands(program, action, lazy) // web, serve

  program.command('ping').description('start the daemon if needed and check that it answers').action(action(lazy('daemon', 'ping')))
  program.command('kill').description('stop every app gracefully, then the daemon').action(action(lazy('daemon', 'kill'), { autoStart: false }))
  program.command('report').description('versions, the daemon and the processes, for a bug report').action(action(lazy('daemon', 'report')))
  program.command('examples').description('common commands').action(action(lazy('daemon', 'examples')))

  program.command('save').alias('dump').description('save the app list (specs, instances, online/stopped) for `xpm resurrect` and boot')
    .option('-f, --force', 'save even an empty list over a non-empty one')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('save', 'save')))
  program.command('cleardump').description('empty the saved app list (the previous save stays in dump.pm2.bak)')
    .action(action(lazy('save', 'cleardump')))
  program.command('resurrect').description('start the apps of the last `xpm save`; apps already managed are left alone')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('resurrect', 'resurrect')))
  program.command('update').alias('updatePM2').description('replace the daemon by the installed version and restore every app')
    .action(action(lazy('update', 'update'), { autoStart: false }))
  program.command('startup [platform]').description('print a systemd unit that runs the daemon at boot and restores the saved apps (platform: systemd, the only one)')
    .option('--install', 'write the unit and enable it with systemctl')
    .option('-u, --user [name]', 'alone: a systemd user unit (~/.config/systemd/user) instead of a system one; with a name (PM2\'s -u): a system unit that runs the daemon as that user')
    .option('--hp <home>', 'with -u <name>: that user\'s home folder (PM2\'s --hp)')
    .option('--service-name <name>', 'the unit\'s name (default xpm-<user>, or xpm for a user unit)')
    .option('--wait-ip', 'start once the network is online (network-online.target)')
    .action(action(withPlatform('startup')))
  program.command('unstartup [platform]').description('disable and remove the unit written by `xpm startup --install`')
    .option('-u, --user [name]', 'alone: the systemd user unit; with a name: the system unit of that user')
    .option('--service-name <name>', 'the unit\'s name, as given to startup')
    .action(action(withPlatform('unstartup')))

  program.command('ecosystem [mode]').alias('init')
    .description('write a commented starter ecosystem.config.js in this folder')
    .action(action(lazy('ecosystem', 'init')))

  program.command('import [dump]')
    .description('start the apps PM2 saved (pm2 save: $PM2_HOME/dump.pm2) and write their ecosystem.config.js; PM2 is left untouched')
    .option('-o, --out <file>', 'the ecosystem file to write', 'ecosystem.config.js')
    .option('--force', 'replace the ecosystem file if it exists')
    .option('--no-start', 'only write the ecosystem file')
    .option('--dry-run', 'print the ecosystem file; write and start nothing')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('import', 'importPm2')))

  program.command('set [key] [value]')
    .description('PM2\'s app settings: set <app>:<key> <value> (kept in XPM_HOME/module_conf.json); the app gets them as environment variables and is restarted')
    .action(action(lazy('app-conf', 'set')))
  program.command('multiset <pairs>').description('several settings at once: "<app>:<key> <value> <app>:<key> <value>"')
    .action(action(lazy('app-conf', 'multiset')))
  program.command('unset <key>').description('remove a setting (<app>:<key>) or all of an app\'s (<app>)')
    .action(action(lazy('app-conf', 'unset'), { autoStart: false }))
  program.command('get [key]').aliases(['conf', 'config']).description('print settings: all, an app\'s (<app>) or one (<app>:<key>)')
    .action(action(lazy('app-conf', 'get'), { autoStart: false }))

  const { NOTICES, notice } = require('./commands/notices')
  for (const [name, entry] of Object.entries(NOTICES)) {
    const cmd = program.command(`${name} [args...]`)
      .description(`(PM2) not in xpm: ${entry.text.split(';')[0]}`)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .helpOption(false)
    if (entry.aliases) cmd.aliases(entry.aliases)
    cmd.action(action(notice(name), { autoStart: false }))
  }

  // listed in the guide, not in the help; a typo is still an error, with the nearest command
  // or alias of all of them suggested
  program.configureHelp({ visibleCommands: (cmd) => cmd.commands.filter((c) => !Object.hasOwn(NOTICES, c.name())) })
  program.unknownCommand = function () {
    const name = this.args[0]
    const { suggest } = require('../config/suggest')
    const near = suggest(name, this.commands.flatMap((c) => [c.name(), ...c.aliases()]))
    this.error(`xpm: unknown command '${name}'${near ? `\n(Did you mean ${near}?)` : ''}`, { code: 'commander.unknownCommand', exitCode: 2 })
  }
  program.addHelpText('after', `\nPM2's other commands (deploy, install, link, send, profile:cpu…) print what to use instead.
Exit status: 0 success, 1 failure (nothing matched, an app did not come online), 2 bad arguments or config.
PM2 users: ${require('node:path').join(__dirname, '..', '..', 'docs', 'migrating-from-pm2.md')}`)
  return program
}

// `xpm startup systemd` as PM2 takes a platform; xpm writes systemd units only.
function withPlatform (name) {
  return async (ctx) => {
    const [platform, opts, command] = ctx.args
    if (platform !== undefined && !['systemd', 'systemd-user'].includes(platform)) {
      const { XpmError } = require('../errors')
      throw new XpmError('XPM_ERR_NOT_SUPPORTED', `${name} ${platform}: xpm writes systemd units only (PM2's upstart, launchd, openrc, rcd and systemv scripts are not supported)`)
    }
    const o = platform === 'systemd-user' ? { ...opts, user: true } : opts
    return require('./commands/startup')[name]({ ...ctx, args: [o, command] })
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

// PM2 accepts each of its flags on every command: one given to a command that has no use for
// it is dropped with a notice (lib/cli/pm2-flags.js), not refused as unknown.
function withoutForeignPm2Flags (argv, program, word) {
  const command = program.commands.find((c) => c.name() === word || c.aliases().includes(word))
  if (!command || Object.hasOwn(require('./commands/notices').NOTICES, command.name())) return argv
  const { stripForeignFlags } = require('./pm2-flags')
  return stripForeignFlags(argv, command, program, { notice: (line) => process.stderr.write(`[xpm] notice: ${line}\n`) })
}

// The command word: the first argument that is not a global option.
function commandWord (argv) {
  return argv.slice(2).find((a) => !a.startsWith('-'))
}

// The commands people run in loops and scripts skip the parser (and commander's load time)
// when they come without options.
const FAST_PATH = {
  list: ['list', 'list'],
  ls: ['list', 'list'],
  l: ['list', 'list'],
  ps: ['list', 'list'],
  status: ['list', 'list'],
  jlist: ['list', 'jlist'],
  ping: ['daemon', 'ping']
}

async function main (argv) {
  // `xpm logs | head`: a reader that goes away ends the command quietly
  process.stdout.on('error', (err) => { if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0) })
  const fast = argv.length === 3 && Object.hasOwn(FAST_PATH, argv[2]) ? FAST_PATH[argv[2]] : null
  if (fast) return action(require(`./commands/${fast[0]}`)[fast[1]])({})
  const { CommanderError } = require('commander')
  // `xpm start app.js -- --port 8080`: what follows `--` is the script's, not xpm's
  let scriptArgs = []
  const word = commandWord(argv)
  const dashes = argv.indexOf('--')
  if (word === 'start' && dashes > argv.indexOf(word)) {
    scriptArgs = argv.slice(dashes + 1)
    argv = argv.slice(0, dashes)
  }
  const program = buildProgram(argv)
  const start = program.commands.find((c) => c.name() === 'start')
  start.scriptArgs = scriptArgs
  argv = withoutForeignPm2Flags(argv, program, word)
  if (word === undefined && !argv.slice(2).some((a) => ['-v', '--version', '-h', '--help'].includes(a))) {
    // no command: the usage, and a failure status (as PM2), so `xpm $CMD` with an empty CMD fails
    program.outputHelp({ error: true })
    process.exitCode = 2
    return
  }
  try {
    await program.parseAsync(argv)
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit 0; usage errors (unknown command or option, bad value) exit 2
      process.exitCode = err.exitCode === 0 ? 0 : 2
      return
    }
    throw err
  }
}

module.exports = { main, buildProgram }
