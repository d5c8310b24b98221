'use strict'

// What one CLI program writes to and connects with, given to every command as ctx.io: the
// streams (process.stdout/stderr/stdin for bin/xpm, buffers in a test), the connection to the
// daemon, the output settings of this run and its exit code. Nothing here is module state: two
// programs in one process (tests) do not see each other's --silent.
//
// Output settings from the global options: -s/--silent (also XPM_SILENT or PM2_SILENT set to
// true or 1) hides the [xpm] messages and the table printed after a command, never what a
// command exists to print (list, jlist, show, logs, env…) nor errors; -m/--mini-list prints
// tables as plain lines; --no-color turns colours off.
const truthy = (v) => v === 'true' || v === '1'

// signals: where SIGINT/SIGTERM arrive (process for bin/xpm, an EventEmitter in a test).
function createIo ({ stdout = process.stdout, stderr = process.stderr, stdin = process.stdin, connect, env = process.env, cwd = () => process.cwd(), signals = process } = {}) {
  const io = {
    stdout,
    stderr,
    stdin,
    env, // the environment the CLI runs in: apps started from it get it, as PM2 gives them
    cwd, // where relative scripts and ecosystem files are found
    signals, // where SIGINT, SIGTERM and SIGHUP arrive (process, or an EventEmitter in a test)
    connect: connect ?? ((options) => require('./client').connect({ home: io.paths().home, ...options, stderr, env })),
    output: {
      silent: truthy(env.XPM_SILENT) || truthy(env.PM2_SILENT),
      mini: false,
      color: null // null: from the terminal (lib/shared/logs/format-line.js shouldColor)
    },
    exitCode: undefined,
    argv: [], // the command line this program runs (run(argv)); `start --no-daemon` hands its flags on

    // The files of this program's XPM_HOME (from env: XPM_HOME, PM2_HOME, ~/.xpm).
    paths () {
      const { homePaths, defaultHome } = require('../shared/paths')
      return homePaths(defaultHome(env), env)
    },

    configureOutput ({ silent, miniList, color } = {}) {
      if (silent) io.output.silent = true
      if (miniList) io.output.mini = true
      if (color === false) io.output.color = false
    },

    // Calls onSignal(name) on each of these signals; returns the function that stops listening.
    onSignals: (names, onSignal) => onSignals(signals, names, onSignal),

    // A message of the command ("[xpm] stopped api"), hidden by --silent.
    say (text) {
      if (!io.output.silent) stdout.write(text)
    },

    // A PM2 key, flag or variable xpm accepts without acting on it (stderr: --json stays JSON).
    notice (line) {
      if (!io.output.silent) stderr.write(`[xpm] notice: ${line}\n`)
    },

    printJson (value) {
      stdout.write(JSON.stringify(value, null, 2) + '\n')
    },

    printError (err) {
      const code = err.code && String(err.code).startsWith('XPM_ERR_') ? ` [${err.code}]` : ''
      // a list of problems (one per line, lib/shared/config/validate.js): the code ends its first line
      const [first, ...rest] = String(err.message).split('\n')
      stderr.write(`xpm: ${first}${code}\n${rest.map((line) => line + '\n').join('')}`)
      if (env.XPM_DEBUG && err.stack) stderr.write(err.stack + '\n')
    },

    // The width and terminal-ness tables are drawn for (80 columns when not a terminal).
    tableOptions () {
      return { columns: stdout.columns || 80, tty: Boolean(stdout.isTTY) }
    },

    // The process table after a command (hidden by --silent; -m: the mini list).
    async showList (client) {
      if (io.output.silent) return
      const { renderList, renderMiniList, LIST_FIELDS } = require('./render-list')
      const rows = await client.request('list', { fields: LIST_FIELDS })
      stdout.write(io.output.mini ? renderMiniList(rows) : renderList(rows, io.tableOptions()))
    }
  }
  return io
}

function onSignals (signals, names, onSignal) {
  const listeners = names.map((name) => [name, () => onSignal(name)])
  for (const [name, listener] of listeners) signals.on(name, listener)
  return () => { for (const [name, listener] of listeners) signals.off(name, listener) }
}

module.exports = { createIo, onSignals }
