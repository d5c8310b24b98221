'use strict'

const { exitCodeFor } = require('../shared/errors')

// The action commander calls, as a command's fn(ctx, input): input is built once here from
// commander's (...positionals, options, command), each positional under its declared name
// (`scale <app> <count>`: { app, count, options, scriptArgs }). scriptArgs: what followed `--`.
function action (io, fn, { autoStart = true, scriptArgs = [] } = {}) {
  return (...args) => runCommand(io, fn, namedInput(args, scriptArgs), { autoStart })
}

function namedInput (args, scriptArgs) {
  const command = args.at(-1)
  const input = { options: args.at(-2) ?? {}, scriptArgs }
  command.registeredArguments.forEach((arg, i) => { input[arg.name()] = args[i] })
  return input
}

// Runs one command with a lazily connected client (so bad arguments are rejected before a daemon
// is started), prints a one-line error and sets the program's exit code on failure. io: the
// program's streams, connection and output settings (io.js).
async function runCommand (io, fn, input, { autoStart = true } = {}) {
  const ctx = {
    io,
    client: null,
    changed: false,
    async connect () {
      if (!ctx.client) {
        ctx.client = await io.connect({ autoStart })
        countChanges(ctx)
        warnOnVersionSkew(ctx.client, io)
        if (ctx.client.hello?.restored) await noticeRestored(ctx.client, io)
      }
      return ctx.client
    }
  }
  try {
    let code
    try {
      code = await fn(ctx, input)
    } catch (err) {
      // The daemon refused the command because an `xpm kill` is stopping it: nothing was done.
      // Wait for that daemon to exit, then run the command once more on a new one.
      if (err.code !== 'XPM_ERR_SHUTTING_DOWN' || !autoStart || !ctx.client || ctx.changed) throw err
      await waitForShutdown(ctx)
      code = await fn(ctx, input)
    }
    if (typeof code === 'number') io.exitCode = code
  } catch (err) {
    io.printError(err)
    io.exitCode = exitCodeFor(err)
  } finally {
    ctx.client?.close()
  }
}

// Whether the command already changed something on this daemon (then it is not run again on a
// new one after a refusal: the `xpm kill` came after that change and wins). The client says
// which method each reply answered ('reply').
const READ_ONLY = new Set(['ping', 'list', 'show', 'logs', 'ackRestored', 'subscribe', 'why'])
function countChanges (ctx) {
  ctx.client.on('reply', (method) => {
    if (!READ_ONLY.has(method)) ctx.changed = true
  })
}

async function waitForShutdown (ctx, { timeout = 120000 } = {}) {
  const old = ctx.client
  ctx.client = null
  const pid = old.hello?.pid
  ctx.io.stderr.write(`[xpm] the daemon${pid ? ` (pid ${pid})` : ''} is shutting down; waiting for it to exit to start a new one\n`)
  // the daemon keeps this connection until its process exits
  const { waitGone } = require('./client')
  await waitGone({ pid, gone: old.closed ? Promise.resolve() : new Promise((resolve) => old.once('close', resolve)), close: () => old.close() }, Date.now() + timeout, ctx.io.paths())
}

function warnOnVersionSkew (client, io) {
  const { version } = require('../../package.json')
  if (client.hello && client.hello.version !== version) {
    io.stderr.write(`xpm: the running daemon is version ${client.hello.version}, this CLI is ${version}; run \`xpm update\` to replace it\n`)
  }
}

// Printed once by the first command after a daemon restored apps on its own (from connect() above).
async function noticeRestored (client, io) {
  const r = client.hello?.restored
  if (!r) return
  const what = `${r.apps} app${r.apps === 1 ? '' : 's'}`
  const line = {
    crash: `the daemon restarted after a crash${r.previousPid ? ` (previous pid ${r.previousPid})` : ''} and restored ${what}`,
    update: `the daemon was replaced by \`xpm update\` and restored ${what}`,
    resurrect: `the daemon started with --resurrect and restored ${what} from the last \`xpm save\``
  }[r.reason] ?? `the daemon restored ${what}`
  io.stderr.write(`[xpm] ${line}\n`)
  if (r.warning) io.stderr.write(`[xpm] warning: ${r.warning}\n`)
  await client.request('ackRestored', {}, { timeout: 5000 }).catch(() => {})
}

module.exports = { action, runCommand }
