#!/usr/bin/env node
'use strict'

// node bench/libs/table-render.js [--rounds 30]
// `xpm list` rendering: the one-pass renderer (lib/cli/render-list.js) against cli-table3
// drawing the same rows with the same widths, at 4 and 1,000 rows (ASCII names, and CJK/emoji
// names, which leave the ASCII fast path), median of warm renders in this process; then the cost
// of the first render in a fresh process (require + render), as a 4-app `xpm list` pays it.
const { performance } = require('node:perf_hooks')
const { execFileSync } = require('node:child_process')
const path = require('node:path')

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 30
const ROOT = path.join(__dirname, '..', '..')

const proc = (i, name) => ({ id: i, name, mode: 'cluster', pid: 10000 + i, uptime: 3723000, restarts: i % 7, status: i % 5 ? 'online' : 'stopped', cpu: i % 100, memory: 52 * 1024 * 1024 + i })
const NAMES = { ascii: (i) => `app-${i}`, cjk: (i) => ['日本語アプリ', '中文应用', '한국어앱', '🚀-rocket'][i % 4] + i }
const rowsOf = (n, kind) => Array.from({ length: n }, (_, i) => proc(i, NAMES[kind](i)))

function viaCliTable3 (rows, out) {
  const Table = require('cli-table3')
  const { formatBytes, formatUptime } = require(path.join(ROOT, 'lib/shared/quantity'))
  const lines = out.split('\n')
  const head = lines[1].split('│').slice(1, -1).map((c) => c.slice(1, -1).trimEnd())
  const colWidths = lines[0].slice(1, -1).split('┬').map((seg) => seg.length)
  return () => {
    const table = new Table({ head, colWidths, style: { 'padding-left': 1, 'padding-right': 1, head: [], border: [] }, wordWrap: false, chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } })
    for (const p of rows) table.push([String(p.id), p.name, p.mode, p.pid ? String(p.pid) : '-', p.pid ? formatUptime(p.uptime) : '-', String(p.restarts), p.status, `${Math.round(p.cpu)}%`, formatBytes(p.memory)])
    return table.toString()
  }
}

function median (fn, rounds) {
  const t = []
  for (let i = 0; i < rounds; i++) {
    const s = performance.now()
    fn()
    t.push(performance.now() - s)
  }
  t.sort((a, b) => a - b)
  return t[Math.floor(t.length / 2)]
}

function fresh (which, n) {
  const code = `
    const { performance } = require('node:perf_hooks')
    const s = performance.now()
    const rows = Array.from({ length: ${n} }, (_, i) => ({ id: i, name: 'app-' + i, mode: 'cluster', pid: 10000 + i, uptime: 3723000, restarts: 0, status: 'online', cpu: 1, memory: 52e6 }))
    if (${JSON.stringify(which)} === 'one-pass') require(${JSON.stringify(path.join(ROOT, 'lib/cli/render-list'))}).renderList(rows, { columns: 120, tty: false })
    else { const T = require('cli-table3'); const t = new T({ head: ['id','name','mode','pid','uptime','↺','status','cpu','mem'] }); for (const p of rows) t.push([String(p.id), p.name, p.mode, String(p.pid), '1h', '0', p.status, '1%', '49.6 MB']); t.toString() }
    process.stdout.write(String(performance.now() - s))`
  const t = []
  for (let i = 0; i < 9; i++) t.push(Number(execFileSync(process.execPath, ['-e', code], { cwd: ROOT })))
  t.sort((a, b) => a - b)
  return t[4]
}

const { renderList } = require(path.join(ROOT, 'lib/cli/render-list'))
console.log(`node ${process.version}; median ms`)
for (const kind of ['ascii', 'cjk']) {
  for (const n of [4, 1000]) {
    const rows = rowsOf(n, kind)
    const out = renderList(rows, { columns: 120, tty: false })
    const table = viaCliTable3(rows, out)
    if (table() + '\n' !== out) throw new Error(`outputs differ (${kind}, ${n} rows)`)
    const r = n > 100 ? Math.max(5, Math.floor(ROUNDS / 3)) : ROUNDS * 10
    console.log(`${kind.padEnd(5)} ${String(n).padStart(4)} rows   one-pass ${median(() => renderList(rows, { columns: 120, tty: false }), r).toFixed(3).padStart(8)}   cli-table3 ${median(table, r).toFixed(3).padStart(8)}`)
  }
}
console.log(`fresh process, require + first render of 4 rows:   one-pass ${fresh('one-pass', 4).toFixed(1)}   cli-table3 ${fresh('cli-table3', 4).toFixed(1)}`)
