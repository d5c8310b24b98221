'use strict'

const { formatBytes, formatUptime } = require('../shared/quantity')
const { formatPercent } = require('./format')
const { displayWidth, truncateWidth, padEndWidth } = require('./display-width')

const HEAD = ['id', 'name', 'mode', 'pid', 'uptime', '↺', 'status', 'cpu', 'mem']
// The fields of a process the table shows: `xpm list` asks the daemon for these only.
const LIST_FIELDS = ['id', 'name', 'namespace', 'mode', 'pid', 'uptime', 'restarts', 'status', 'cpu', 'memory', 'ready']
const STATUS_COLORS = { online: 32, errored: 31, stopped: 90, 'waiting restart': 33, launching: 36, stopping: 33, 'not ready': 33 }

// An online process whose readiness probe fails (docs/health.md) reads "not ready".
function shownStatus (p) {
  return p.status === 'online' && p.ready === false ? 'not ready' : String(p.status)
}

// The process table, fitted to the terminal (80 columns when not a TTY): the name column gives
// way first, then the status column. Every cell keeps one space each side (a cramped table
// loses characters of a name, never the padding that lines the cells up). Widths are display
// widths (日本語 and emoji take two columns) and cut cells end in '…', as cli-table3 draws them:
// test/unit/render-list.test.js keeps this output byte-identical to cli-table3's for the same
// rows. Built in one pass over the rows, as strings: cli-table3 lays cells out in time that grows
// with the square of the rows (docs/architecture.md, "Dependencies").
function renderList (processes, { columns = process.stdout.columns || 80, tty = Boolean(process.stdout.isTTY) } = {}) {
  if (processes.length === 0) return 'No processes. Start one with `xpm start app.js`.\n'
  // a namespace column only when some app has one; a host column first across hosts (lib/cli/fleet)
  const withNs = processes.some((p) => p.namespace && p.namespace !== 'default')
  const withHost = processes.some((p) => p.host !== undefined)
  const head = [...(withHost ? ['host'] : []), ...(withNs ? [...HEAD.slice(0, 2), 'namespace', ...HEAD.slice(2)] : HEAD)]
  const STATUS = head.indexOf('status')
  const widths = head.map((h) => displayWidth(h))
  const rows = new Array(processes.length)
  for (let r = 0; r < processes.length; r++) {
    const row = listRow(processes[r], withNs, withHost)
    for (let i = 0; i < row.length; i++) {
      const w = displayWidth(row[i])
      if (w > widths[i]) widths[i] = w
    }
    rows[r] = row
  }
  fitWidths(widths, head, columns, STATUS)
  const cells = widths.map((w) => w + 2)
  const grey = tty ? (s) => `\u001b[90m${s}\u001b[39m` : (s) => s
  const bar = grey('│')
  const cell = (text, i) => ' ' + padEndWidth(truncateWidth(text, widths[i]), widths[i]) + ' '
  const rule = (left, mid, right) => cells.map((w, i) => grey((i === 0 ? left : mid) + '─'.repeat(w) + (i === cells.length - 1 ? right : ''))).join('')

  const out = [rule('┌', '┬', '┐')]
  out.push(bar + head.map((h, i) => tty ? `\u001b[1m\u001b[36m${cell(h, i)}\u001b[39m\u001b[22m` : cell(h, i)).join(bar) + bar)
  for (const row of rows) {
    let line = bar
    for (let i = 0; i < row.length; i++) {
      const text = cell(row[i], i)
      line += (i === STATUS && tty ? colorStatus(text, row[STATUS]) : text) + bar
    }
    out.push(line)
  }
  out.push(rule('└', '┴', '┘'))
  return out.join('\n') + '\n'
}

// The cells of one process, as text. A process with no pid (stopped, errored, waiting) has no
// uptime either: '-' like its pid, not 0.
function listRow (p, withNs, withHost) {
  const row = [
    String(p.id), String(p.name), String(p.mode), p.pid ? String(p.pid) : '-', p.pid ? formatUptime(p.uptime) : '-',
    String(p.restarts), shownStatus(p), formatPercent(p.cpu), formatBytes(p.memory)
  ]
  if (withNs) row.splice(2, 0, String(p.namespace ?? 'default'))
  if (withHost) row.unshift(String(p.host))
  return row
}

// Shrinks the name column (down to 6), then the status column (down to its header), until the
// table fits in `columns`; each column takes its content, a space each side and a bar.
function fitWidths (widths, head, columns, STATUS) {
  let over = widths.reduce((a, b) => a + b, 0) + head.length * 3 + 1 - columns
  for (const [i, min] of [[head.indexOf('name'), 6], [STATUS, head[STATUS].length]]) {
    if (over <= 0) return
    const give = Math.min(over, Math.max(0, widths[i] - min))
    widths[i] -= give
    over -= give
  }
}

// `-m, --mini-list`: one plain line per process, columns separated by spaces, no box, no
// colour; easy to grep and cut. The namespace column appears when an app has one.
function renderMiniList (processes) {
  const withNs = processes.some((p) => p.namespace && p.namespace !== 'default')
  const withHost = processes.some((p) => p.host !== undefined)
  const head = [...(withHost ? ['host'] : []), 'id', 'name', ...(withNs ? ['namespace'] : []), 'mode', 'pid', 'uptime', 'restarts', 'status', 'cpu', 'mem']
  const rows = processes.map((p) => [
    ...(withHost ? [String(p.host)] : []), String(p.id), String(p.name), ...(withNs ? [String(p.namespace ?? 'default')] : []), String(p.mode), p.pid ? String(p.pid) : '-',
    p.pid ? formatUptime(p.uptime) : '-', String(p.restarts), shownStatus(p), formatPercent(p.cpu), formatBytes(p.memory).replace(' ', '')
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => displayWidth(r[i]))))
  const line = (cells) => cells.map((c, i) => i === cells.length - 1 ? c : padEndWidth(c, widths[i])).join(' ')
  return [line(head), ...rows.map(line)].join('\n') + '\n'
}

// `--sort <field>[:asc|desc]` as PM2 takes it: name, id, pid, memory, cpu, status, uptime,
// restarts (and mode, namespace). Returns a comparator, or throws with a suggestion.
const SORT_FIELDS = {
  id: (p) => p.id,
  name: (p) => String(p.name),
  namespace: (p) => String(p.namespace ?? 'default'),
  mode: (p) => String(p.mode),
  pid: (p) => p.pid || 0,
  memory: (p) => p.memory || 0,
  mem: (p) => p.memory || 0,
  cpu: (p) => p.cpu || 0,
  status: (p) => String(p.status),
  uptime: (p) => p.uptime || 0,
  restarts: (p) => p.restarts || 0,
  restart: (p) => p.restarts || 0
}

function parseSort (text) {
  const { XpmError } = require('../shared/errors')
  const [field, dir = 'asc', ...rest] = String(text).split(':')
  if (!Object.hasOwn(SORT_FIELDS, field) || rest.length || !['asc', 'desc'].includes(dir)) {
    const { suggest } = require('../shared/config/suggest')
    const near = Object.hasOwn(SORT_FIELDS, field) ? null : suggest(field, Object.keys(SORT_FIELDS))
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--sort "${text}": expected <field>[:asc|desc] with a field among ${Object.keys(SORT_FIELDS).join(', ')}` +
      (near ? ` — did you mean "${near}"?` : ''))
  }
  const key = SORT_FIELDS[field]
  const sign = dir === 'desc' ? -1 : 1
  return (a, b) => {
    const x = key(a)
    const y = key(b)
    const c = typeof x === 'string' ? x.localeCompare(y) : x - y
    return c ? sign * c : a.id - b.id
  }
}

function sortRows (rows, text) {
  return text ? [...rows].sort(parseSort(text)) : rows
}

// The padded status cell with the status itself colored.
function colorStatus (text, status) {
  const code = STATUS_COLORS[status]
  return code ? text.replace(status, `\u001b[${code}m${status}\u001b[39m`) : text
}

module.exports = { renderList, renderMiniList, parseSort, sortRows, LIST_FIELDS, SORT_FIELDS }
