'use strict'

const { exitCodeFor } = require('../shared/errors')

// Runs one command action with a lazily connected client (so bad arguments are rejected
// before a daemon is started), prints a one-line error and sets the exit code on failure.
function action (fn, { autoStart = true } = {}) {
  return async (...args) => {
    const ctx = {
      args,
      client: null,
      async connect () {
        if (!ctx.client) {
          const { connect } = require('./client')
          ctx.client = await connect({ autoStart })
          countChanges(ctx)
          warnOnVersionSkew(ctx.client)
          if (ctx.client.hello?.restored) await noticeRestored(ctx.client)
        }
        return ctx.client
      }
    }
    try {
      let code
      try {
        code = await fn(ctx)
      } catch (err) {
        // The daemon refused the command because an `xpm kill` is stopping it: nothing was done.
        // Wait for that daemon to exit, then run the command once more on a new one.
        if (err.code !== 'XPM_ERR_SHUTTING_DOWN' || !autoStart || !ctx.client || ctx.changed) throw err
        await waitForShutdown(ctx)
        code = await fn(ctx)
      }
      if (typeof code === 'number') process.exitCode = code
    } catch (err) {
      printError(err)
      process.exitCode = exitCodeFor(err)
    } finally {
      ctx.client?.close()
    }
  }
}

// Whether the command already changed something on this daemon (then it is not run again on a
// new one after a refusal: the `xpm kill` came after that change and wins).
const READ_ONLY = new Set(['ping', 'list', 'show', 'logs', 'ackRestored', 'subscribe', 'why'])
function countChanges (ctx) {
  const client = ctx.client
  const request = client.request.bind(client)
  client.request = async (method, ...rest) => {
    const result = await request(method, ...rest)
    if (!READ_ONLY.has(method)) ctx.changed = true
    return result
  }
}

async function waitForShutdown (ctx, { timeout = 120000 } = {}) {
  const old = ctx.client
  ctx.client = null
  const pid = old.hello?.pid
  process.stderr.write(`[xpm] the daemon${pid ? ` (pid ${pid})` : ''} is shutting down; waiting for it to exit to start a new one\n`)
  // the daemon keeps this connection until its process exits
  const { waitGone } = require('./client')
  const { homePaths } = require('../shared/paths')
  await waitGone({ pid, gone: old.closed ? Promise.resolve() : new Promise((resolve) => old.once('close', resolve)), close: () => old.close() }, Date.now() + timeout, homePaths())
}

function warnOnVersionSkew (client) {
  const { version } = require('../../package.json')
  if (client.hello && client.hello.version !== version) {
    process.stderr.write(`xpm: the running daemon is version ${client.hello.version}, this CLI is ${version}; run \`xpm update\` to replace it\n`)
  }
}

// Printed once by the first command after a daemon restored apps on its own (from connect() above).
async function noticeRestored (client) {
  const r = client.hello?.restored
  if (!r) return
  const what = `${r.apps} app${r.apps === 1 ? '' : 's'}`
  const line = {
    crash: `the daemon restarted after a crash${r.previousPid ? ` (previous pid ${r.previousPid})` : ''} and restored ${what}`,
    update: `the daemon was replaced by \`xpm update\` and restored ${what}`,
    resurrect: `the daemon started with --resurrect and restored ${what} from the last \`xpm save\``
  }[r.reason] ?? `the daemon restored ${what}`
  process.stderr.write(`[xpm] ${line}\n`)
  if (r.warning) process.stderr.write(`[xpm] warning: ${r.warning}\n`)
  await client.request('ackRestored', {}, { timeout: 5000 }).catch(() => {})
}

function printError (err) {
  const code = err.code && String(err.code).startsWith('XPM_ERR_') ? ` [${err.code}]` : ''
  // a list of problems (one per line, lib/shared/config/validate.js): the code ends its first line
  const [first, ...rest] = String(err.message).split('\n')
  process.stderr.write(`xpm: ${first}${code}\n${rest.map((line) => line + '\n').join('')}`)
  if (process.env.XPM_DEBUG && err.stack) process.stderr.write(err.stack + '\n')
}

function printJson (value) {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n')
}

// Output settings from the global options: -s/--silent (also XPM_SILENT or PM2_SILENT set to
// true or 1) hides the [xpm] messages and the table printed after a command, never what a
// command exists to print (list, jlist, show, logs, env…) nor errors; -m/--mini-list prints
// tables as plain lines; --no-color turns colours off.
const truthy = (v) => v === 'true' || v === '1'
const output = {
  silent: truthy(process.env.XPM_SILENT) || truthy(process.env.PM2_SILENT),
  mini: false,
  color: null // null: from the terminal (lib/shared/logs/format-line.js shouldColor)
}

function configureOutput ({ silent, miniList, color } = {}) {
  if (silent) output.silent = true
  if (miniList) output.mini = true
  if (color === false) output.color = false
}

// A message of the command ("[xpm] stopped api"), hidden by --silent.
function say (text) {
  if (!output.silent) process.stdout.write(text)
}

// The process table after a command (hidden by --silent; -m: the mini list).
async function showList (client) {
  if (output.silent) return
  const { renderList, renderMiniList, LIST_FIELDS } = require('./render-list')
  const rows = await client.request('list', { fields: LIST_FIELDS })
  process.stdout.write(output.mini ? renderMiniList(rows) : renderList(rows))
}

module.exports = { action, printError, printJson, output, configureOutput, say, showList }
