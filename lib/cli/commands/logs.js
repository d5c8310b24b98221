'use strict'

// `xpm logs`: the last N lines of each log file (out, then error, per app, as PM2 prints them),
// then the live stream, from one request so there is no gap and no duplicate between the two.
async function logs (ctx, { targets = [], options: opts }) {
  const { io } = ctx
  const client = await ctx.connect()
  const { formatLine, shouldColor } = require('../../shared/logs/format-line')
  const { expandTargets, wire } = require('../targets')
  const target = targets.length ? wire(await expandTargets(client, targets)) : 'all'
  const streams = opts.out && !opts.err ? ['out'] : opts.err && !opts.out ? ['err'] : ['out', 'err']
  const color = io.output.color === false ? false : shouldColor(io.stdout, io.env)
  const timestamp = opts.timestamp ? require('../../shared/logs/date-format').compileDateFormat(opts.timestamp === true ? 'YYYY-MM-DD-HH:mm:ss' : opts.timestamp) : null
  const style = { raw: opts.raw, json: opts.json, color, timestamp, format: opts.format, highlight: typeof opts.highlight === 'string' ? opts.highlight : null }
  const print = (line) => io.stdout.write(formatLine(line, style) + '\n')
  // a heading per file on a terminal (pipes and --raw/--json get the lines alone)
  const headings = io.stdout.isTTY && opts.lines > 0 && !opts.raw && !opts.json && !opts.format
  const follow = !opts.nostream
  const buffered = []
  let historyDone = false
  client.on('event', ({ event, data }) => {
    if (event === 'log') historyDone ? print(data) : buffered.push(data)
    if (event === 'dropped') io.stderr.write(`[xpm] ${data.count} line(s) skipped: this terminal could not keep up\n`)
  })
  const { lines, files } = await client.request('logs', { target, lines: opts.lines, streams, follow, perFile: true }, { timeout: 30000 })
  let at = 0
  for (const file of files) {
    if (headings) io.say(`${color ? '\x1b[2m' : ''}[xpm] ${file.file}, last ${file.lines} line${file.lines === 1 ? '' : 's'}:${color ? '\x1b[0m' : ''}\n`)
    for (const line of lines.slice(at, at + file.lines)) print(line)
    at += file.lines
  }
  historyDone = true
  for (const line of buffered) print(line)
  if (!follow) return
  await new Promise((resolve) => {
    // Ctrl-C: the user closed the stream; the connection then closes too, and that is no news
    let stopped = false
    const stopListening = io.onSignals(['SIGINT', 'SIGTERM'], () => {
      stopListening()
      stopped = true
      resolve(0)
    })
    client.once('close', () => {
      stopListening()
      if (stopped) return
      io.stderr.write('[xpm] the daemon closed the log stream\n')
      resolve(1)
    })
  }).then((code) => { io.exitCode = code })
}

async function flush (ctx, { targets = [] }) {
  const client = await ctx.connect()
  const { expandTargets, wire } = require('../targets')
  const target = targets.length ? wire(await expandTargets(client, targets)) : 'all'
  await client.request('flush', { target })
  ctx.io.say(`[xpm] flushed the logs of ${targets.length ? targets.join(', ') : 'all apps'}\n`)
}

async function reloadLogs (ctx) {
  const client = await ctx.connect()
  await client.request('reloadLogs')
  ctx.io.say('[xpm] log files reopened\n')
}

module.exports = { logs, flush, reloadLogs }
