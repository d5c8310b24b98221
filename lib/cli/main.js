'use strict'

const { action } = require('./run')
const { createIo } = require('./io')

// Commands whose options come from the app option table (lib/shared/config/options.js): it is loaded
// only when one of them runs (or help is asked for), which keeps `xpm list` fast.
const WITH_START_OPTIONS = new Set(['start', 'help'])

// The program: global options, help and errors; its commands are command-table.js's.
// io: where this program writes and how it connects (io.js); commander's help and errors too.
function buildProgram (argv = [], io = createIo()) {
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
    .configureOutput({
      writeOut: (str) => io.stdout.write(str),
      writeErr: (str) => io.stderr.write(str),
      getOutHelpWidth: () => (io.stdout.isTTY ? io.stdout.columns : undefined),
      getErrHelpWidth: () => (io.stderr.isTTY ? io.stderr.columns : undefined),
      outputError: (str, write) => write(str.replace(/^error: /, 'xpm: '))
    })
  program.hook('preAction', (_, command) => io.configureOutput(command.optsWithGlobals()))
  const act = (fn, options) => action(io, fn, options)
  const NOTICES = require('./command-table').addCommands(program, { act, withStartOptions: WITH_START_OPTIONS.has(commandWord(argv)) })

  // listed in the guide, not in the help; a typo is still an error, with the nearest command
  // or alias of all of them suggested
  program.configureHelp({ visibleCommands: (cmd) => cmd.commands.filter((c) => !c._hidden && !Object.hasOwn(NOTICES, c.name())) })
  program.unknownCommand = function () {
    const name = this.args[0]
    const { suggest } = require('../shared/config/suggest')
    const near = suggest(name, this.commands.flatMap((c) => [c.name(), ...c.aliases()]))
    this.error(`xpm: unknown command '${name}'${near ? `\n(Did you mean ${near}?)` : ''}`, { code: 'commander.unknownCommand', exitCode: 2 })
  }
  program.addHelpText('after', `\nPM2's other commands (install, link, send, profile:cpu…) print what to use instead.
Exit status: 0 success, 1 failure (nothing matched, an app did not come online), 2 bad arguments or config.
PM2 users: ${require('node:path').join(__dirname, '..', '..', 'docs', 'migrating-from-pm2.md')}`)
  return program
}

// PM2 accepts each of its flags on every command: one given to a command that has no use for
// it is dropped with a notice (lib/cli/pm2-flags.js), not refused as unknown.
function withoutForeignPm2Flags (argv, program, word, io) {
  const command = program.commands.find((c) => c.name() === word || c.aliases().includes(word))
  if (!command || Object.hasOwn(require('./commands/notices').NOTICES, command.name())) return argv
  const { stripForeignFlags } = require('./pm2-flags')
  return stripForeignFlags(argv, command, program, { notice: (line) => io.stderr.write(`[xpm] notice: ${line}\n`) })
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
  ping: ['daemon', 'ping'],
  bridge: ['../fleet/bridge', 'bridge'] // run by every fleet command on each host (lib/cli/fleet/)
}

// The CLI as a program: bin/xpm builds it with the process's streams and the real connection; a
// test with buffers and a daemon of its own. run(argv) resolves to the exit code (undefined: 0).
// Also stdin, env and cwd (a function), for what a command reads (io.js).
function createProgram ({ stdout, stderr, stdin, connect, env, cwd } = {}) {
  const io = createIo({ stdout, stderr, stdin, connect, env, cwd })
  return { io, run: (argv) => runProgram(argv, io) }
}

async function runProgram (argv, io) {
  io.argv = argv
  const fast = argv.length === 3 && Object.hasOwn(FAST_PATH, argv[2]) ? FAST_PATH[argv[2]] : null
  if (fast) {
    await action(io, require(`./commands/${fast[0]}`)[fast[1]])({})
    return io.exitCode
  }
  const { CommanderError } = require('commander')
  // `xpm start app.js -- --port 8080`: what follows `--` is the script's, not xpm's
  let scriptArgs = []
  const word = commandWord(argv)
  const dashes = argv.indexOf('--')
  if (word === 'start' && dashes > argv.indexOf(word)) {
    scriptArgs = argv.slice(dashes + 1)
    argv = argv.slice(0, dashes)
  }
  const program = buildProgram(argv, io)
  const start = program.commands.find((c) => c.name() === 'start')
  start.scriptArgs = scriptArgs
  argv = withoutForeignPm2Flags(argv, program, word, io)
  if (word === undefined && !argv.slice(2).some((a) => ['-v', '--version', '-h', '--help'].includes(a))) {
    // no command: the usage, and a failure status (as PM2), so `xpm $CMD` with an empty CMD fails
    program.outputHelp({ error: true })
    return 2
  }
  try {
    await program.parseAsync(argv)
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit 0; usage errors (unknown command or option, bad value) exit 2
      return err.exitCode === 0 ? 0 : 2
    }
    throw err
  }
  return io.exitCode
}

async function main (argv) {
  // `xpm logs | head`: a reader that goes away ends the command quietly
  process.stdout.on('error', (err) => { if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0) })
  const code = await createProgram().run(argv)
  if (code !== undefined) process.exitCode = code
}

module.exports = { main, buildProgram, createProgram }
