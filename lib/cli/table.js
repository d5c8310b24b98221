'use strict'

const { displayWidth } = require('./display-width')

// Small boxed tables (`xpm show`, `xpm why`, the `apply` plan) drawn by cli-table3, in one style:
// no rules between rows, bold cyan header and grey box on a terminal, plain in a pipe. On a
// terminal the `flex` column (the long free text) takes what the others leave of its width and
// wraps there (between words, or anywhere with wrapOnWords false: paths must not be cut short;
// continuation lines keep the indent of the line they continue);
// in a pipe nothing wraps, so a line can be grepped whole. cli-table3 is required
// here, on first use: commands that draw no table never load it. (`xpm list` has its own
// one-pass renderer for speed: lib/cli/render-list.js.)
function renderTable (rows, { head = null, flex = null, wrapOnWords = true, tty = Boolean(process.stdout.isTTY), columns = process.stdout.columns || 80 } = {}) {
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
      rows = rows.map((row) => row.map((cell, i) => (i === flex && typeof cell === 'string' ? wrap(cell, room, wrapOnWords) : cell)))
    }
  }
  const table = new Table(options)
  for (const row of rows) table.push(row)
  return table.toString() + '\n'
}

// Lines of at most `width` display columns: greedy between words (a longer word is split), or
// anywhere. Done here rather than by cli-table3's wordWrap, which cuts a word longer than the
// column, or a line with CJK in it, instead of wrapping it.
function wrap (text, width, onWords) {
  const out = []
  for (const line of text.split('\n')) {
    const indent = onWords ? /^ */.exec(line)[0] : ''
    const pieces = onWords ? line.slice(indent.length).split(/( +)/) : [...line]
    let current = indent
    let used = indent.length
    for (const piece of pieces) {
      const w = displayWidth(piece)
      if (used + w <= width) {
        current += piece
        used += w
        continue
      }
      if (onWords && /^ +$/.test(piece)) continue // a break replaces the spaces
      if (used > indent.length) {
        out.push(current.trimEnd())
        current = indent
        used = indent.length
      }
      for (const ch of onWords && w > width - used ? [...piece] : [piece]) {
        const cw = displayWidth(ch)
        if (used + cw > width && used > indent.length) {
          out.push(current)
          current = indent
          used = indent.length
        }
        current += ch
        used += cw
      }
    }
    out.push(current.trimEnd())
  }
  return out.join('\n')
}

module.exports = { renderTable, wrap }
