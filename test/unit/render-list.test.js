'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { renderList } = require('../../lib/cli/render-list')
const { displayWidth } = require('../../lib/cli/display-width')
const { formatUptime, formatBytes } = require('../../lib/shared/quantity')
const { formatPercent } = require('../../lib/cli/format')

const proc = (over) => ({ id: 0, name: 'api', mode: 'cluster', pid: 4242, uptime: 3723000, restarts: 2, status: 'waiting restart', cpu: 12.5, memory: 52 * 1024 * 1024, ...over })

test('the process table stays within 80 columns, shortening long names first, then the status; the padding never collapses', () => {
  const rows = [proc({ name: 'a-very-long-application-name-that-goes-on-and-on' }), proc({ id: 1234, pid: 4194304, memory: 1.5 * 1024 ** 3 })]
  const roomy = renderList(rows, { columns: 90, tty: false })
  assert.match(roomy, /│ a-very-long… │/)
  assert.match(roomy, /│ waiting restart │/)
  const out = renderList(rows, { columns: 80, tty: false })
  for (const line of out.trimEnd().split('\n')) assert.ok(displayWidth(line) <= 80, `${displayWidth(line)}: ${line}`)
  assert.match(out, /│ a-ver… │/)
  assert.match(out, /│ waiting re… │/)
  for (const text of ['id', 'name', 'mode', 'pid', 'uptime', 'status', 'cpu', 'mem', '13%', '52.0 MB', '1.5 GB', '1h', '4194304']) assert.ok(out.includes(text), text)
  // every cell keeps a space each side (it used to read `│ id│ name    │` in a pipe)
  for (const line of out.trimEnd().split('\n').slice(1, -1)) {
    for (const c of line.split('│').slice(1, -1)) assert.match(c, /^ .* $/, `cell "${c}" in ${line}`)
  }
})

test('a process with no pid shows an uptime of -, not 0', () => {
  const out = renderList([proc({ pid: 0, status: 'stopped', uptime: 0 }), proc({ id: 1, status: 'online', uptime: 0 })], { columns: 120, tty: false })
  const [stopped, online] = out.split('\n').slice(2, 4).map((l) => l.split('│').map((c) => c.trim()))
  assert.deepEqual([stopped[4], stopped[5]], ['-', '-'])
  assert.deepEqual([online[4], online[5]], ['4242', '0'])
})

test('no processes says how to start one', () => {
  assert.match(renderList([]), /xpm start/)
})

test('1,000 rows: one line each between the rules, all the same width; colors only on a terminal', () => {
  const rows = Array.from({ length: 1000 }, (_, i) => proc({ id: i, name: `sleeper-${i}`, status: i % 2 ? 'online' : 'stopped', pid: i % 2 ? 10000 + i : 0 }))
  const out = renderList(rows, { columns: 120, tty: false })
  const lines = out.trimEnd().split('\n')
  assert.equal(lines.length, 1000 + 3)
  assert.ok(lines.every((l) => [...l].length === [...lines[0]].length))
  assert.ok(!out.includes('\u001b'))
  const colored = renderList(rows.slice(0, 2), { columns: 120, tty: true })
  assert.ok(colored.includes('\u001b[32monline\u001b[39m'))
  assert.ok(colored.includes('\u001b[90m│\u001b[39m'))
})

// cli-table3 drawing the same rows with the widths the one-pass renderer chose (its layout with
// fixed colWidths, a space each side, no row separators): what `xpm list` drew before it was
// replaced for speed. Colours off, as in a pipe.
function layoutOf (out) {
  const lines = out.trimEnd().split('\n')
  const head = lines[1].split('│').slice(1, -1).map((c) => c.slice(1, -1).trimEnd())
  const colWidths = lines[0].slice(1, -1).split('┬').map((seg) => seg.length)
  return { head, colWidths }
}

function cliTable3 (rows, colWidths, head) {
  const Table = require('cli-table3')
  const table = new Table({
    head,
    colWidths,
    style: { 'padding-left': 1, 'padding-right': 1, head: [], border: [] },
    wordWrap: false,
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }
  })
  for (const row of rows) table.push(row)
  return table.toString() + '\n'
}

const CJK = [
  proc({ id: 0, name: '日本語アプリ', status: 'online' }),
  proc({ id: 1, name: '中文应用服务器', status: 'stopped', pid: 0, uptime: 0 }),
  proc({ id: 2, name: '한국어앱', status: 'online', restarts: 11 }),
  proc({ id: 3, name: 'api-🚀', status: 'errored', pid: 0 }),
  proc({ id: 4, name: '🚀🚀 launch', status: 'online', memory: 1.5 * 1024 ** 3 }),
  proc({ id: 5, name: 'café-naïve', status: 'waiting restart', pid: 0 })
]

function sameAsCliTable3 (processes, columns) {
  const out = renderList(processes, { columns, tty: false })
  const { head, colWidths } = layoutOf(out)
  // the rows uncut, from the processes: cli-table3 must cut them the same way
  const uncut = processes.map((p) => [String(p.id), p.name, p.mode, p.pid ? String(p.pid) : '-', p.pid ? formatUptime(p.uptime) : '-',
    String(p.restarts), p.status, formatPercent(p.cpu), formatBytes(p.memory)])
  assert.equal(out, cliTable3(uncut, colWidths, head), `columns ${columns}`)
  return out
}

test('byte-identical to cli-table3 for the same rows: ASCII, 4 rows and 1,000 rows', () => {
  sameAsCliTable3([0, 1, 2, 3].map((i) => proc({ id: i, name: `app-${i}`, status: i % 2 ? 'online' : 'stopped', pid: i % 2 ? 100 + i : 0 })), 80)
  sameAsCliTable3([proc({ name: 'a-very-long-application-name-that-goes-on-and-on' }), proc({ id: 1234, pid: 4194304, memory: 1.5 * 1024 ** 3 })], 80)
  sameAsCliTable3(Array.from({ length: 1000 }, (_, i) => proc({ id: i, name: `sleeper-${i}`, status: i % 3 ? 'online' : 'waiting restart' })), 120)
})

test('CJK and emoji names: byte-identical to cli-table3, aligned by display width, cut as cli-table3 cuts (日本…) within 80 columns', () => {
  const wide = sameAsCliTable3(CJK, 120)
  const widths = wide.trimEnd().split('\n').map(displayWidth)
  assert.ok(widths.every((w) => w === widths[0]), widths.join(','))
  assert.match(wide, /│ 日本語アプリ {3}│/)
  const narrow = sameAsCliTable3(CJK, 80)
  for (const line of narrow.trimEnd().split('\n')) assert.equal(displayWidth(line), displayWidth(narrow.split('\n')[0]), line)
  assert.ok(displayWidth(narrow.split('\n')[0]) <= 80)
  assert.match(narrow, /│ 日本… {2}│/)
  // the columns line up: every bar at the same display column on every line
  const bars = (line) => { const at = []; let col = 0; for (const ch of line) { if ('│┌┬┐└┴┘'.includes(ch)) at.push(col); col += displayWidth(ch) } return at.join(',') }
  for (const line of narrow.trimEnd().split('\n')) assert.equal(bars(line), bars(narrow.split('\n')[0]), line)
})

test('an emoji cut in the middle: whole characters only (cli-table3 would leave half a surrogate pair), same width', () => {
  const out = renderList([proc({ name: '🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀' })], { columns: 80, tty: false })
  assert.equal(out.isWellFormed?.() ?? true, true)
  const lines = out.trimEnd().split('\n')
  for (const line of lines) assert.equal(displayWidth(line), displayWidth(lines[0]))
  assert.match(out, /│ (🚀)+… ? │/u)
  const odd = renderList([proc({ name: '🚀'.repeat(20) }), proc({ id: 1, name: '12345678' })], { columns: 81, tty: false })
  assert.equal(odd.isWellFormed(), true)
  assert.match(odd, /│ (🚀)+… {2}│/u)
})
