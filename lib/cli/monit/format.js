'use strict'

const { displayWidth, truncateWidth, padEndWidth, padStartWidth } = require('../display-width')

// Pure text formatting for the monit dashboard: percentages, block charts, and fitting columns
// into a width (bytes and durations: lib/shared/quantity.js, shared with list and show). No blessed
// here, so it is unit-tested on plain strings.

const BLOCKS = '▁▂▃▄▅▆▇█'

function isNumber (n) {
  return typeof n === 'number' && Number.isFinite(n)
}

function formatPercent (p, digits = 1) {
  if (!isNumber(p)) return '-'
  return `${p.toFixed(digits)}%`
}

// elu is a 0..1 ratio; shown as a percentage.
function formatRatio (r) {
  return isNumber(r) ? formatPercent(r * 100) : '-'
}

// Local wall-clock HH:MM:SS for log lines; time may be epoch ms or an ISO string.
function formatClock (time) {
  if (time === null || time === undefined) return '--:--:--' // a line read back from a file
  const d = new Date(time)
  if (Number.isNaN(d.getTime())) return '--:--:--'
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')
}

// A bar chart of the last `width` values, `height` rows tall, top row first. Missing values
// (null) are blank columns; any present value, even 0, shows at least the lowest block so a
// flat-zero series is visibly different from no data. Short series are right-aligned.
function barChart (values, { width, height = 1, max } = {}) {
  if (!(width > 0) || !(height > 0)) return []
  const tail = values.slice(-width)
  const present = tail.filter(isNumber)
  const top = isNumber(max) && max > 0 ? max : Math.max(0, ...present)
  const levels = new Array(width - tail.length).fill(-1)
  for (const v of tail) {
    if (!isNumber(v)) levels.push(-1)
    else levels.push(Math.max(1, top > 0 ? Math.round(Math.min(v, top) / top * height * 8) : 1))
  }
  const rows = []
  for (let r = height - 1; r >= 0; r--) {
    let line = ''
    for (const level of levels) {
      const fill = Math.min(8, level - r * 8)
      line += fill > 0 ? BLOCKS[fill - 1] : ' '
    }
    rows.push(line)
  }
  return rows
}

function sparkline (values, width, opts = {}) {
  return barChart(values, { ...opts, width, height: 1 })[0] ?? ''
}

// Widths are display widths: 日本語 and emoji take two columns (lib/cli/display-width.js).
function truncate (text, width) {
  text = String(text)
  if (width <= 0) return ''
  return truncateWidth(text, width)
}

// Greedy word wrap; words longer than the width are cut.
function wrapWords (text, width) {
  if (width <= 0) return []
  const lines = []
  let line = ''
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    if (line && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(line)
      line = ''
    }
    line = truncate(line ? `${line} ${word}` : word, width)
  }
  if (line) lines.push(line)
  return lines
}

function pad (text, width, align = 'left') {
  text = truncate(text, width)
  return align === 'right' ? padStartWidth(text, width) : padEndWidth(text, width)
}

// Widths for columns [{ width, flex, drop }] in `total` characters with one space between
// columns: fixed columns keep their width, flex columns share what is left. When even the
// minimum widths do not fit, columns with a `drop` rank are hidden (width 0), highest rank
// first, and as a last resort the first column is cut to the total.
function fitColumns (columns, total) {
  const widths = columns.map((c) => c.width)
  const used = () => widths.reduce((sum, w) => sum + (w > 0 ? w + 1 : 0), 0) - 1
  const droppable = columns.map((c, i) => i).filter((i) => columns[i].drop).sort((a, b) => columns[b].drop - columns[a].drop)
  for (const i of droppable) {
    if (used() <= total) break
    widths[i] = 0
  }
  const flex = columns.map((c, i) => i).filter((i) => columns[i].flex && widths[i] > 0)
  if (flex.length && used() < total) {
    const spare = total - used()
    flex.forEach((i, k) => { widths[i] += Math.floor(spare / flex.length) + (k < spare % flex.length ? 1 : 0) })
  }
  for (let i = widths.length - 1; i > 0 && used() > total; i--) widths[i] = 0
  if (used() > total) widths[0] = Math.max(0, total)
  return widths
}

// decorate(index, paddedText) lets the caller color a cell after padding, so tags never count
// towards the width.
function formatRow (cells, columns, widths, decorate = (i, text) => text) {
  return cells
    .map((cell, i) => (widths[i] > 0 ? decorate(i, pad(cell, widths[i], columns[i].align)) : null))
    .filter((cell) => cell !== null)
    .join(' ')
}

module.exports = {
  BLOCKS,
  formatPercent,
  formatRatio,
  formatClock,
  barChart,
  sparkline,
  truncate,
  wrapWords,
  pad,
  fitColumns,
  formatRow
}
