'use strict'

const { formatBytes, formatUptime } = require('../quantity')
const { formatPercent, truncate } = require('./format')

const HEAD = ['id', 'name', 'mode', 'pid', 'uptime', '↺', 'status', 'cpu', 'mem']
// The fields of a process the table shows: `xpm list` asks the daemon for these only.
const LIST_FIELDS = ['id', 'name', 'mode', 'pid', 'uptime', 'restarts', 'status', 'cpu', 'memory']
const STATUS_COLORS = { online: 32, errored: 31, stopped: 90, 'waiting restart': 33, launching: 36, stopping: 33 }

// The process table, fitted to the terminal (80 columns when not a TTY): the name column
// gives way first. Built in one pass over the rows, as strings (the box-drawing layout
// cli-table3 used to draw, without its per-cell cost: 1,000 rows take a few ms).
function renderList (processes, { columns = process.stdout.columns || 80, tty = Boolean(process.stdout.isTTY) } = {}) {
  if (processes.length === 0) return 'No processes. Start one with `xpm start app.js`.\n'
  const widths = HEAD.map((h) => h.length)
  const rows = new Array(processes.length)
  for (let r = 0; r < processes.length; r++) {
    const p = processes[r]
    const row = [
      String(p.id), String(p.name), String(p.mode), p.pid ? String(p.pid) : '-', formatUptime(p.uptime),
      String(p.restarts), String(p.status), formatPercent(p.cpu), formatBytes(p.memory)
    ]
    for (let i = 0; i < row.length; i++) if (row[i].length > widths[i]) widths[i] = row[i].length
    rows[r] = row
  }
  const content = widths.reduce((a, b) => a + b, 0)
  // Two spaces of padding per column when they fit, one when not; then the name column gives way.
  const padding = content + HEAD.length * 3 + 1 <= columns ? 2 : 1
  const spare = columns - content - HEAD.length * (padding + 1) - 1
  if (spare < 0) widths[1] = Math.max(6, widths[1] + spare)
  const cells = widths.map((w) => w + padding)
  const grey = tty ? (s) => `\u001b[90m${s}\u001b[39m` : (s) => s
  const bar = grey('│')
  const cell = (text, i) => ' ' + text + ' '.repeat(Math.max(0, cells[i] - 1 - text.length))
  const rule = (left, mid, right) => cells.map((w, i) => grey((i === 0 ? left : mid) + '─'.repeat(w) + (i === cells.length - 1 ? right : ''))).join('')

  const out = [rule('┌', '┬', '┐')]
  out.push(bar + HEAD.map((h, i) => tty ? `\u001b[1m\u001b[36m${cell(h, i)}\u001b[39m\u001b[22m` : cell(h, i)).join(bar) + bar)
  for (const row of rows) {
    row[1] = truncate(row[1], widths[1])
    let line = bar
    for (let i = 0; i < row.length; i++) {
      const text = cell(row[i], i)
      line += (i === 6 && tty ? colorStatus(text, row[6]) : text) + bar
    }
    out.push(line)
  }
  out.push(rule('└', '┴', '┘'))
  return out.join('\n') + '\n'
}

// The padded status cell with the status itself colored.
function colorStatus (text, status) {
  const code = STATUS_COLORS[status]
  return code ? text.replace(status, `\u001b[${code}m${status}\u001b[39m`) : text
}

module.exports = { renderList, LIST_FIELDS }
