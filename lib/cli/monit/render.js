'use strict'

// Builds the text of each dashboard panel from the model, as blessed-tagged strings sized to a
// given width and height. Pure (no blessed), so the layout logic is tested on plain strings.
// Across hosts (`xpm monit --hosts`, fleet-client.js) the list has a host column first, ids are
// each host's own, and the header counts the hosts and names those unreachable.

const f = require('./format')
const { displayWidth, padEndWidth } = require('../display-width')
const { formatBytes, formatDuration, formatUptime } = require('../../shared/quantity')

const EMPTY = 'no processes — start one with `xpm start app.js`'
const STATUS_COLORS = { online: 'green', errored: 'red', unreachable: 'red', stopping: 'yellow', launching: 'cyan', 'waiting restart': 'yellow' }
const LIST_COLUMNS = [
  { title: 'id', width: 3, align: 'right' },
  { title: 'name', width: 6, flex: true },
  { title: 'status', width: 9, drop: 3 },
  { title: 'cpu', width: 6, align: 'right', drop: 1 },
  { title: 'mem', width: 8, align: 'right', drop: 2 }
]
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g

function escape (text) {
  return String(text).replace(/[{}]/g, (ch) => (ch === '{' ? '{open}' : '{close}'))
}

function color (text, name) {
  return name ? `{${name}-fg}${text}{/${name}-fg}` : text
}

// model.fleet: { labels: [...], unreachable: [{ label }] } across hosts
function hostsText (fleet) {
  if (!fleet) return ''
  const down = fleet.unreachable.map((h) => h.label)
  return `   ${fleet.labels.length} host${fleet.labels.length === 1 ? '' : 's'}${down.length ? ` (unreachable: ${down.join(', ')})` : ''}`
}

function listColumns (model) {
  if (!model.fleet) return LIST_COLUMNS
  const width = Math.min(16, Math.max(4, ...model.fleet.labels.map(displayWidth)))
  // a status wide enough for `unreachable`
  return [{ title: 'host', width, drop: 0.5 }, ...LIST_COLUMNS.map((c) => (c.title === 'status' ? { ...c, width: 11 } : c))]
}

function header (model, width) {
  const t = model.totals()
  const left = ` xpm monit${hostsText(model.fleet)}   ${t.online}/${t.total} online   CPU ${f.formatPercent(t.cpu)}   MEM ${formatBytes(t.memory)}`
  const right = '↑↓/jk select   q quit '
  const gap = width - displayWidth(left) - displayWidth(right)
  return gap >= 2 ? left + ' '.repeat(gap) + right : f.truncate(left, width)
}

// Returns one string per visible list row, the selected row inverted.
function listLines (model, width, height) {
  if (model.processes.length === 0) return f.wrapWords(EMPTY, width).map(escape)
  const columns = listColumns(model)
  const widths = f.fitColumns(columns, width)
  const lines = [`{bold}${escape(f.formatRow(columns.map((c) => c.title), columns, widths))}{/bold}`]
  const { rows } = model.visibleRows(height - 1)
  const statusAt = model.fleet ? 3 : 2
  for (const p of rows) {
    const cells = [p.hostId ?? p.id, p.name, p.status, f.formatPercent(p.cpu), formatBytes(p.memory)]
    if (model.fleet) cells.unshift(p.host)
    if (p.id === model.selectedId) {
      lines.push(`{inverse}${escape(padEndWidth(f.formatRow(cells, columns, widths), width))}{/inverse}`)
    } else {
      lines.push(f.formatRow(cells, columns, widths, (i, text) => (i === statusAt ? color(escape(text), STATUS_COLORS[p.status]) : escape(text))))
    }
  }
  return lines
}

function chart (title, values, width, height, formatValue) {
  const present = values.filter((v) => typeof v === 'number')
  const last = present.length ? present[present.length - 1] : null
  const max = present.length ? Math.max(...present) : null
  const label = f.truncate(`${title} ${formatValue(last)}   max ${formatValue(max)}`, width)
  return [`{bold}${label}{/bold}`, ...f.barChart(values, { width, height }).map((row) => color(row, 'cyan'))]
}

// Visible length of a tagged string, to truncate without counting tags.
function visibleLength (text) {
  return displayWidth(text.replace(/\{[^}]*\}/g, ''))
}

// The selected process: figures on top, then CPU and heap charts filling the remaining rows.
function detailLines (model, width, height) {
  const p = model.selected()
  if (!p) return []
  const m = p.metrics
  const figures = [
    `{bold}${escape(p.name)}{/bold} #${p.hostId ?? p.id}${p.host ? ` on ${escape(p.host)}` : ''}  instance ${p.instance ?? '-'}  ${color(escape(p.status), STATUS_COLORS[p.status])}  pid ${p.pid ?? '-'}`,
    `uptime ${formatUptime(p.uptime)}   restarts ${p.restarts ?? 0}   mem ${formatBytes(p.memory)}`,
    m
      ? `event loop p95 ${formatDuration(m.elP95)}  p99 ${formatDuration(m.elP99)}  util ${f.formatRatio(m.elu)}`
      : 'event loop -  (no agent metrics)',
    m ? `heap ${formatBytes(m.heapUsed)} / ${formatBytes(m.heapTotal)}` : 'heap -'
  ]
  const lines = figures.map((line) => fitTagged(line, width))
  const rows = height - lines.length - 3
  if (rows < 2) return lines.slice(0, Math.max(height, 0))
  const cpuRows = Math.ceil(rows / 2)
  const heapRows = rows - cpuRows
  lines.push('', ...chart('CPU', model.seriesOf(p.id, 'cpu', width), width, cpuRows, f.formatPercent))
  lines.push(...chart('heap', model.seriesOf(p.id, 'heapUsed', width), width, heapRows, formatBytes))
  return lines.slice(0, height)
}

function fitTagged (line, width) {
  if (visibleLength(line) <= width) return line
  // Too narrow for the tags to matter: drop them and cut the plain text.
  return escape(f.truncate(line.replace(/\{[^}]*\}/g, '').replace(/\{open\}/g, '{').replace(/\{close\}/g, '}'), width))
}

function logLines (model) {
  const p = model.selected()
  if (!p) return []
  const logs = model.logsOf(p.id)
  if (logs.length === 0) return ['no output yet']
  return logs.map(({ time, stream, line }) => {
    const text = escape(String(line).replace(ANSI, ''))
    const prefix = `${f.formatClock(time)} `
    return prefix + (stream === 'err' || stream === 'stderr' ? color(text, 'red') : text)
  })
}

module.exports = { EMPTY, escape, header, listLines, detailLines, logLines }
