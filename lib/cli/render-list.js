'use strict'

const { formatBytes, formatUptime } = require('../quantity')
const { formatPercent, truncate } = require('./format')

const HEAD = ['id', 'name', 'mode', 'pid', 'uptime', '↺', 'status', 'cpu', 'mem']

// The process table, fitted to the terminal (80 columns when not a TTY): the name column
// gives way first.
function renderList (processes, { columns = process.stdout.columns || 80 } = {}) {
  if (processes.length === 0) return 'No processes. Start one with `xpm start app.js`.\n'
  const rows = processes.map((p) => [
    String(p.id), p.name, p.mode, p.pid ? String(p.pid) : '-', formatUptime(p.uptime),
    String(p.restarts), p.status, formatPercent(p.cpu), formatBytes(p.memory)
  ])
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const content = widths.reduce((a, b) => a + b, 0)
  // Two spaces of padding per column when they fit, one when not; then the name column gives way.
  const padding = content + HEAD.length * 3 + 1 <= columns ? 2 : 1
  const spare = columns - content - HEAD.length * (padding + 1) - 1
  if (spare < 0) widths[1] = Math.max(6, widths[1] + spare)
  const Table = require('cli-table3')
  const table = new Table({
    head: HEAD,
    colWidths: widths.map((w) => w + padding),
    style: { 'padding-left': 1, 'padding-right': padding - 1, head: process.stdout.isTTY ? ['cyan', 'bold'] : [], border: process.stdout.isTTY ? ['grey'] : [] },
    wordWrap: false,
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }
  })
  for (const row of rows) {
    row[1] = truncate(row[1], widths[1])
    if (process.stdout.isTTY) row[6] = colorStatus(row[6])
    table.push(row)
  }
  return table.toString() + '\n'
}

function colorStatus (status) {
  const code = { online: 32, errored: 31, stopped: 90, 'waiting restart': 33, launching: 36, stopping: 33 }[status]
  return code ? `\u001b[${code}m${status}\u001b[39m` : status
}

module.exports = { renderList }
