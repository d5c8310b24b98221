'use strict'

// `logs --host/--hosts`: each host's last lines merged in time order, then the live lines of all
// hosts as they come, each line after its host's label (`--json`: a `host` field). A host that
// cannot be reached, or drops while following, is named on stderr; the others go on (exit 1).
const { summarize } = require('./each-host')

async function logs (fleet, ctx, rest, options) {
  const { io } = ctx
  const targets = rest[0]?.targets || []
  const { formatLine, shouldColor } = require('../../shared/logs/format-line')
  const streams = options.out && !options.err ? ['out'] : options.err && !options.out ? ['err'] : ['out', 'err']
  const color = io.output.color === false ? false : shouldColor(io.stdout, io.env)
  const timestamp = options.timestamp ? require('../../shared/logs/date-format').compileDateFormat(options.timestamp === true ? 'YYYY-MM-DD-HH:mm:ss' : options.timestamp) : null
  const style = { raw: options.raw, json: options.json, color, timestamp, format: options.format, highlight: typeof options.highlight === 'string' ? options.highlight : null }
  const print = (label, line) => io.stdout.write(options.json ? formatLine({ host: label, ...line }, style) + '\n' : `${label} ${formatLine(line, style)}\n`)
  const follow = !options.nostream
  const results = new Map(fleet.hosts.map((e) => [e.label, { label: e.label, code: e.error ? 1 : 0, error: e.error }]))
  const early = [] // live lines that came before every host's history was printed
  let historyDone = false
  const history = []
  await Promise.all(fleet.hosts.filter((e) => e.client).map(async (e) => {
    e.client.on('event', ({ event, data }) => {
      if (event === 'log') historyDone ? print(e.label, data) : early.push([e.label, data])
      if (event === 'dropped') io.stderr.write(`[xpm] ${e.label}: ${data.count} line(s) skipped: this terminal could not keep up\n`)
    })
    try {
      const { expandTargets, wire } = require('../targets')
      const target = targets.length ? wire(await expandTargets(e.client, targets)) : 'all'
      const { lines } = await e.client.request('logs', { target, lines: options.lines, streams, follow, perFile: true }, { timeout: 30000 })
      history.push(...lines.map((line) => [e.label, line]))
    } catch (err) {
      Object.assign(results.get(e.label), { code: 1, error: e.error || err })
    }
  }))
  // stable: a host's lines of the same millisecond keep their order
  for (const [label, line] of byTime(history)) print(label, line)
  historyDone = true
  for (const [label, line] of byTime(early)) print(label, line)
  const following = fleet.hosts.filter((e) => e.client && !results.get(e.label).error)
  if (follow && following.length) await untilStopped(fleet, following, results, io)
  return summarize([...results.values()], io)
}

const byTime = (pairs) => pairs.map((p, i) => [p, i]).sort((a, b) => ((a[0][1].time ?? 0) - (b[0][1].time ?? 0)) || a[1] - b[1]).map(([p]) => p)

// Until Ctrl-C (or SIGTERM), or every host's stream has closed; a host that drops is said at once.
function untilStopped (fleet, following, results, io) {
  return new Promise((resolve) => {
    let open = following.length
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      fleet.off('down', down)
      resolve()
    }
    const down = (entry) => {
      if (!following.includes(entry)) return
      Object.assign(results.get(entry.label), { code: 1, error: entry.error })
      io.printError(entry.error)
      results.get(entry.label).said = true
      if (--open === 0) stop()
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    fleet.on('down', down)
  })
}

module.exports = { logs }
