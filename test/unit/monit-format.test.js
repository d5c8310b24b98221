'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const f = require('../../lib/cli/monit/format')

test('formatPercent and formatRatio show missing values as a dash', () => {
  assert.equal(f.formatPercent(12.345), '12.3%')
  assert.equal(f.formatPercent(undefined), '-')
  assert.equal(f.formatRatio(0.125), '12.5%')
  assert.equal(f.formatRatio(null), '-')
})

test('formatClock accepts epoch ms and ISO strings', () => {
  const d = new Date(2024, 0, 2, 3, 4, 5)
  assert.equal(f.formatClock(d.getTime()), '03:04:05')
  assert.equal(f.formatClock(d.toISOString()), '03:04:05')
  assert.equal(f.formatClock('nonsense'), '--:--:--')
})

test('sparkline scales to the maximum, right-aligns short series and blanks missing points', () => {
  assert.equal(f.sparkline([0, 4, 8], 5), '  ▁▄█')
  assert.equal(f.sparkline([1, null, 1], 3), '█ █')
  assert.equal(f.sparkline([0, 0], 2), '▁▁', 'a flat zero series still shows a baseline')
  assert.equal(f.sparkline([2, 4], 2, { max: 8 }), '▂▄')
  assert.equal(f.sparkline([1, 2, 3, 4], 2), '▆█', 'only the last width points are drawn')
  assert.equal(f.sparkline([], 3), '   ')
  assert.equal(f.sparkline([1], 0), '')
})

test('barChart stacks blocks over several rows, top row first', () => {
  assert.deepEqual(f.barChart([2, 8, 16], { width: 3, height: 2 }), [
    '  █',
    '▂██'
  ])
  assert.deepEqual(f.barChart([12], { width: 1, height: 2, max: 16 }), ['▄', '█'])
  for (const row of f.barChart([5, 1, 9, 3], { width: 10, height: 4 })) assert.equal(row.length, 10)
})

test('truncate and pad never exceed the width', () => {
  assert.equal(f.truncate('billing-service', 8), 'billing…')
  assert.equal(f.truncate('api', 8), 'api')
  assert.equal(f.truncate('api', 1), '…')
  assert.equal(f.truncate('api', 0), '')
  assert.equal(f.pad('api', 6), 'api   ')
  assert.equal(f.pad('1.5%', 6, 'right'), '  1.5%')
})

test('wrapWords wraps on spaces and cuts words longer than the width', () => {
  assert.deepEqual(f.wrapWords('no processes yet', 12), ['no processes', 'yet'])
  assert.deepEqual(f.wrapWords('abcdefgh', 4), ['abc…'])
  assert.deepEqual(f.wrapWords('x', 0), [])
})

test('fitColumns gives the spare room to flex columns and drops low-priority columns when narrow', () => {
  const cols = [{ width: 3 }, { width: 6, flex: true }, { width: 9, drop: 3 }, { width: 6, drop: 1 }, { width: 8, drop: 2 }]
  assert.deepEqual(f.fitColumns(cols, 50), [3, 20, 9, 6, 8])
  assert.deepEqual(f.fitColumns(cols, 26), [3, 6, 0, 6, 8], 'status goes first')
  assert.deepEqual(f.fitColumns(cols, 17), [3, 6, 0, 6, 0], 'then memory')
  assert.deepEqual(f.fitColumns(cols, 5), [3, 0, 0, 0, 0])
  assert.deepEqual(f.fitColumns(cols, 2), [2, 0, 0, 0, 0])
})

test('formatRow pads each cell, skips hidden columns and decorates after padding', () => {
  const cols = [{ width: 3, align: 'right' }, { width: 5 }, { width: 4 }]
  assert.equal(f.formatRow([7, 'api', 'x'], cols, [3, 5, 0]), '  7 api  ')
  assert.equal(f.formatRow([7, 'api'], cols, [3, 5], (i, t) => (i === 1 ? `<${t}>` : t)), '  7 <api  >')
})
