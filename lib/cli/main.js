'use strict'

const { action } = require('./run')

// The program: names, flags and help text. Each action lives in lib/cli/commands/ and is
// required only when its command runs, so `xpm ping` never loads table or UI code.
function buildProgram (argv = []) {
  const { Command } = require('commander')
  const program = new Command('xpm')
    .version(require('../../package.json').version, '-v, --version')
    .description('A production process manager for Node.js')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'xpm: ')) })
  const lazy = (file, name) => (...args) => require(`./commands/${file}`)[name](...args)

  const start = program.command('start <target>')
    .description('start a script, an ecosystem file, or a stopped app by name or id')
    .usage('<script|ecosystem|name|id> [options] [-- script args]')
    .allowExcessArguments(true)
  // The option table is only loaded when `start` runs (or its help is asked for): keeps `xpm list` fast.
  if (argv[2] === 'start' || argv[2] === 'help') require('./start-options').addStartOptions(start)
  start.option('--json', 'print the started processes as JSON')
    .action(action(lazy('start', 'start')))

  for (const [name, alias, what] of [['stop', null, 'stop'], ['restart', null, 'stop then start again'], ['delete', 'del', 'stop and forget']]) {
    const cmd = program.command(`${name} <target>`).description(`${what} an app, a process id, "all", or the apps of an ecosystem file`)
    if (alias) cmd.alias(alias)
    cmd.option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
      .option('--env <name>', 'with an ecosystem file: merge env_<name> over env')
      .option('--update-env', 'restart with the CLI\'s current environment')
      .option('--json', 'print the result as JSON')
      .action(action(lazy('lifecycle', name)))
  }

  program.command('reload <target>')
    .description('replace the workers one at a time without dropping a request (fork mode: restart)')
    .option('--only <names>', 'with an ecosystem file: only these apps (comma-separated)')
    .option('--env <name>', 'with an ecosystem file: merge env_<name> over env')
    .option('--update-env', 'give the new workers the CLI\'s current environment')
    .option('--json', 'print the steps and the result as JSON lines')
    .action(action(lazy('reload', 'reload')))

  program.command('scale <name> <count>')
    .description('add or remove instances of an app: 4, +2 or -1 (the others keep running)')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('scale', 'scale')))
  program.command('sendSignal <signal> <target>')
    .description('send a signal such as SIGUSR2 to the processes of an app, a process id or "all"')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('signal', 'sendSignal')))
  program.command('reset <target>')
    .description('zero the restart counters and crash history of an app, a process id or "all"')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('reset', 'reset')))

  program.command('list').aliases(['ls', 'status'])
    .description('list the processes')
    .option('--json', 'print JSON only')
    .action(action(lazy('list', 'list')))
  program.command('jlist').description('list the processes as JSON').action(action(lazy('list', 'jlist')))
  program.command('show <target>').alias('describe')
    .description('details of an app or process')
    .option('--json', 'print JSON only')
    .action(action(lazy('list', 'show')))

  program.command('logs [target]')
    .description('print the last lines of the logs, then stream new ones')
    .option('--lines <n>', 'how many past lines to print', parseCount, 15)
    .option('--out', 'only standard output')
    .option('--err', 'only standard error')
    .option('--raw', 'lines without the id|name| prefix')
    .option('--json', 'one JSON object per line')
    .option('--nostream', 'print the past lines and exit')
    .action(action(lazy('logs', 'logs')))
  program.command('flush [target]').description('empty the log files').action(action(lazy('logs', 'flush')))
  program.command('reloadLogs').description('reopen the log files (after an external logrotate)').action(action(lazy('logs', 'reloadLogs')))

  program.command('monit').description('live dashboard of CPU, memory and event-loop latency').action(action(lazy('monit', 'monit')))

  program.command('ping').description('start the daemon if needed and check that it answers').action(action(lazy('daemon', 'ping')))
  program.command('kill').description('stop every app gracefully, then the daemon').action(action(lazy('daemon', 'kill'), { autoStart: false }))

  program.command('save').description('save the app list (specs, instances, online/stopped) for `xpm resurrect` and boot')
    .option('-f, --force', 'save even an empty list over a non-empty one')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('save', 'save')))
  program.command('resurrect').description('start the apps of the last `xpm save`; apps already managed are left alone')
    .option('--json', 'print the result as JSON')
    .action(action(lazy('resurrect', 'resurrect')))
  program.command('update').description('replace the daemon by the installed version and restore every app')
    .action(action(lazy('update', 'update'), { autoStart: false }))
  program.command('startup').description('print a systemd unit that runs the daemon at boot and restores the saved apps')
    .option('--install', 'write the unit and enable it with systemctl')
    .option('--user', 'a systemd user unit (~/.config/systemd/user) instead of a system one')
    .action(action(lazy('startup', 'startup')))
  program.command('unstartup').description('disable and remove the unit written by `xpm startup --install`')
    .option('--user', 'the systemd user unit')
    .action(action(lazy('startup', 'unstartup')))

  program.command('ecosystem').alias('init')
    .description('write a commented starter ecosystem.config.js in this folder')
    .action(action(lazy('ecosystem', 'init')))

  return program
}

function parseCount (value) {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) {
    const { InvalidArgumentError } = require('commander')
    throw new InvalidArgumentError(`Expected a whole number, got "${value}".`)
  }
  return n
}

// The commands people run in loops and scripts skip the parser (and commander's load time)
// when they come without options.
const FAST_PATH = {
  list: ['list', 'list'],
  ls: ['list', 'list'],
  status: ['list', 'list'],
  jlist: ['list', 'jlist'],
  ping: ['daemon', 'ping']
}

async function main (argv) {
  const fast = argv.length === 3 && Object.hasOwn(FAST_PATH, argv[2]) ? FAST_PATH[argv[2]] : null
  if (fast) return action(require(`./commands/${fast[0]}`)[fast[1]])({})
  const { CommanderError } = require('commander')
  const program = buildProgram(argv)
  if (argv.length <= 2) {
    program.outputHelp()
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
