'use strict'

// How `xpm logs` prints one line object from the daemon ({ app, id, instance, pid, stream,
// time, line }): `id|name| line`, just the line with raw, or the object as one JSON line.
// Colors only when asked (the caller decides, usually from stdout.isTTY).
const COLORS = { out: '\x1b[32m', err: '\x1b[31m', history: '\x1b[2m', marker: '\x1b[33m' }
const RESET = '\x1b[0m'

function formatLine (obj, { raw = false, json = false, color = false } = {}) {
  if (json) return JSON.stringify(obj)
  const line = String(obj.line ?? '')
  if (raw) return line
  const prefix = `${obj.id ?? '-'}|${obj.app ?? 'xpm'}| `
  if (!color) return prefix + line
  const tint = obj.skipped ? COLORS.marker : obj.id === null || obj.id === undefined ? COLORS.history : COLORS[obj.stream] || COLORS.out
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
