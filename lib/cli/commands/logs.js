'use strict'

// `xpm logs`: the last N lines (counted as lines), then the live stream, from one request so
// there is no gap and no duplicate between the two.
async function logs (ctx) {
  const [target, opts] = ctx.args
  const client = await ctx.connect()
  const { formatLine } = require('../../logs/format-line')
  const streams = opts.out && !opts.err ? ['out'] : opts.err && !opts.out ? ['err'] : ['out', 'err']
  const print = (line) => process.stdout.write(formatLine(line, { raw: opts.raw, json: opts.json, color: process.stdout.isTTY }) + '\n')
  const follow = !opts.nostream
  const buffered = []
  let historyDone = false
  client.on('event', ({ event, data }) => {
    if (event === 'log') historyDone ? print(data) : buffered.push(data)
    if (event === 'dropped') process.stderr.write(`[xpm] ${data.count} line(s) skipped: this terminal could not keep up\n`)
  })
  const { lines } = await client.request('logs', { target: target ?? 'all', lines: opts.lines, streams, follow }, { timeout: 30000 })
  for (const line of lines) print(line)
  historyDone = true
  for (const line of buffered) print(line)
  if (!follow) return
  await new Promise((resolve) => {
    const stop = () => resolve(0)
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    client.once('close', () => {
      process.stderr.write('[xpm] the daemon closed the log stream\n')
      resolve(1)
    })
  }).then((code) => { process.exitCode = code })
}

async function flush (ctx) {
  const [target] = ctx.args
  const client = await ctx.connect()
  await client.request('flush', { target: target ?? 'all' })
  process.stdout.write(`[xpm] flushed the logs of ${target ?? 'all apps'}\n`)
}

async function reloadLogs (ctx) {
  const client = await ctx.connect()
  await client.request('reloadLogs')
  process.stdout.write('[xpm] log files reopened\n')
}

module.exports = { logs, flush, reloadLogs }
