'use strict'

// How `xpm logs` prints one line object from the daemon ({ app, id, instance, pid, stream,
// time, line }): `id|name| line`, just the line with raw, or the object as one JSON line.
// Standard error lines are marked: red with colours, `id|name|err| line` without (so a log
// read in a file or a pipe still says which stream a line came from). Colours only when asked
// (the caller decides, usually from stdout.isTTY).
//   timestamp: a function ms → text; the line is prefixed with its time (PM2's --timestamp)
//   format:    PM2's --format: `timestamp=… app=… id=… type=out message=…`
//   highlight: a string shown in inverse video wherever it occurs (with colours only)
const COLORS = { out: '\x1b[32m', err: '\x1b[31m', history: '\x1b[2m', marker: '\x1b[33m' }
const RESET = '\x1b[0m'

function formatLine (obj, { raw = false, json = false, color = false, timestamp = null, format = false, highlight = null } = {}) {
  if (json) return JSON.stringify(obj)
  let line = String(obj.line ?? '')
  if (color && highlight) line = line.split(highlight).join(`\x1b[7m${highlight}\x1b[27m`)
  const time = timestamp && obj.time != null ? timestamp(obj.time) : null
  if (format) {
    return `${time !== null ? `timestamp=${time} ` : ''}app=${obj.app ?? 'xpm'} id=${obj.id ?? '-'} type=${obj.stream === 'err' ? 'err' : 'out'} message=${line}`
  }
  if (time !== null) line = `${time} ${line}`
  if (raw) return line
  const err = obj.stream === 'err' && !obj.skipped
  if (!color) return `${obj.id ?? '-'}|${obj.app ?? 'xpm'}|${err ? 'err|' : ''} ${line}`
  const prefix = `${obj.id ?? '-'}|${obj.app ?? 'xpm'}| `
  const tint = obj.skipped ? COLORS.marker : obj.id === null || obj.id === undefined ? (err ? COLORS.err : COLORS.history) : COLORS[obj.stream] || COLORS.out
  return tint + prefix + RESET + line
}

// The notice printed when the daemon skipped lines for a slow reader.
function formatDropped (count, options = {}) {
  return formatLine({ app: 'xpm', id: null, stream: 'err', line: `[xpm] ${count} lines skipped (reader too slow)`, skipped: count }, options)
}

function shouldColor (stream = process.stdout, env = process.env) {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return Boolean(stream.isTTY)
}

module.exports = { formatLine, formatDropped, shouldColor }
