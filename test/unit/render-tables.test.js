'use strict'

// The small tables drawn through cli-table3: `xpm show`, `xpm why` (the apply plan: apply-plan.test.js).
const test = require('node:test')
const assert = require('node:assert/strict')
const { renderShow } = require('../../lib/cli/render-show')
const { renderWhy } = require('../../lib/cli/render-why')
const { wrap } = require('../../lib/cli/table')
const { displayWidth } = require('../../lib/cli/display-width')

const SCRIPT = '/very/long/path/to/some/deeply/nested/application/directory/server/index.js'
const proc = {
  ...{ id: 12, name: '日本語アプリ', instance: 3, status: 'online', pid: 5, uptime: 10000, createdAt: 0, restarts: 0, cpu: 0, memory: 1e6 },
  spec: { script: SCRIPT, args: [], cwd: '/', execMode: 'fork', interpreter: 'node' },
  logs: { out: '/home/someone/.xpm/logs/日本語アプリ-out.log', err: '/home/someone/.xpm/logs/日本語アプリ-error.log' }
}
const ESC = String.fromCharCode(27)
const strip = (s) => s.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')
const cellsOf = (text, column) => strip(text).trimEnd().split('\n').slice(1, -1).map((l) => l.split('│')[column + 1]?.trim() ?? '')

test('show in a pipe: one table, whole values on one line each, no colours', () => {
  const out = renderShow([proc], { tty: false })
  assert.ok(!out.includes(ESC))
  assert.match(out, new RegExp(`^│ script +│ ${SCRIPT} │$`, 'm'))
  assert.match(out, /^│ name +│ 日本語アプリ \(id 12, instance 3\) +│$/m)
  const widths = out.trimEnd().split('\n').map(displayWidth)
  assert.ok(widths.every((w) => w === widths[0]), 'every line as wide as the box')
  assert.match(renderShow([{ ...proc, pid: 0, status: 'stopped' }], { tty: false }), /^│ uptime +│ - +│$/m, 'no pid, no uptime')
})

test('show on a terminal: fits the width, a long path wraps (CJK included) instead of being cut', () => {
  const out = strip(renderShow([proc], { tty: true, columns: 60 }))
  for (const line of out.trimEnd().split('\n')) assert.equal(displayWidth(line), 60, line)
  const values = cellsOf(out, 1)
  const keys = cellsOf(out, 0)
  const joined = (key) => { const i = keys.indexOf(key); let v = values[i]; for (let j = i + 1; keys[j] === ''; j++) v += values[j]; return v }
  assert.equal(joined('script'), SCRIPT)
  assert.equal(joined('out log'), proc.logs.out)
  assert.ok(!out.includes('…'))
})

test('why on a terminal: the sentence wraps between words, the last lines keep their indent', () => {
  const entry = { at: 0, app: 'api', instance: 0, pid: 100, event: 'exit', code: 1, signal: null, ranMs: 2100, role: 'current', cause: { by: 'itself', kind: 'crash' }, next: 'restart', delay: 100, lines: [{ stream: 'err', line: 'Error: boom ' + 'x'.repeat(90) }] }
  const out = strip(renderWhy([entry], { now: 0, tty: true, columns: 80 }))
  for (const line of out.trimEnd().split('\n')) assert.ok(displayWidth(line) <= 80, line)
  const what = cellsOf(out, 2).slice(1)
  assert.deepEqual(what.slice(0, 2), ['crashed: exit code 1 after running 2.1 s;', 'restarting in 100 ms'])
  assert.equal(what.slice(3).join('').replace(/ /g, ''), 'err|Error:boom' + 'x'.repeat(90))
})

test('wrap: words, then anywhere; display widths', () => {
  assert.equal(wrap('aaa bbb ccc', 7, true), 'aaa bbb\nccc')
  assert.equal(wrap('  aaa bbbbbbbbbb', 6, true), '  aaa\n  bbbb\n  bbbb\n  bb')
  assert.equal(wrap('日本語アプリ', 5, false), '日本\n語ア\nプリ')
})
