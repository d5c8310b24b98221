'use strict'

const { displayWidth } = require('../display-width')

// Small boxed tables (`xpm show`, `xpm why`, the `apply` plan) drawn by cli-table3, in one style:
// no rules between rows, bold cyan header and grey box on a terminal, plain in a pipe. On a
// terminal the `flex` column (the long free text) takes what the others leave of its width and
// wraps there; in a pipe nothing wraps, so a line can be grepped whole. cli-table3 is required
// here, on first use: commands that draw no table never load it. (`xpm list` has its own
// one-pass renderer for speed: lib/cli/render-list.js.)
function renderTable (rows, { head = null, flex = null, tty = Boolean(process.stdout.isTTY), columns = process.stdout.columns || 80 } = {}) {
  const Table = require('cli-table3')
  const options = {
    style: { 'padding-left': 1, 'padding-right': 1, head: tty ? ['cyan', 'bold'] : [], border: tty ? ['grey'] : [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }
  }
  if (head) options.head = head
  if (tty && flex !== null) {
    const count = Math.max(head ? head.length : 0, ...rows.map((r) => r.length))
    const widths = new Array(count).fill(0)
    for (const row of head ? [head, ...rows] : rows) {
      row.forEach((cell, i) => {
        if (typeof cell === 'string') widths[i] = Math.max(widths[i], ...cell.split('\n').map(displayWidth))
      })
    }
    const fixed = widths.reduce((sum, w, i) => (i === flex ? sum : sum + w + 2), 0)
    const room = columns - fixed - (count + 1) - 2
    if (room >= 20 && widths[flex] > room) {
      options.colWidths = widths.map((w, i) => (i === flex ? room + 2 : w + 2))
      options.wordWrap = true
      options.wrapOnWordBoundary = true
    }
  }
  const table = new Table(options)
  for (const row of rows) table.push(row)
  return table.toString() + '\n'
}

module.exports = { renderTable }
