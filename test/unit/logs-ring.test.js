'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { Ring, RingBudget, RECORD_OVERHEAD } = require('../../daemon/logs/ring')

const line = (size, seq) => ({ seq, size, pos: 0, obj: { line: 'x' } })

test('a ring keeps at most maxLines and maxBytes (a line costs its bytes plus the record), at least the newest line', () => {
  const ring = new Ring({ maxLines: 5, maxBytes: 3 * (100 + RECORD_OVERHEAD), budget: null })
  for (let i = 0; i < 10; i++) ring.push(line(100, i))
  assert.deepEqual(ring.toArray().map((r) => r.seq), [7, 8, 9])
  ring.push(line(10000, 10))
  assert.deepEqual(ring.toArray().map((r) => r.seq), [10])
  ring.clear()
  assert.equal(ring.bytes, 0)
})

test('all rings together stay within the shared budget: each gives back down to an equal share', () => {
  const budget = new RingBudget(10 * (40 + RECORD_OVERHEAD))
  const rings = Array.from({ length: 2 }, () => new Ring({ budget }))
  for (let i = 0; i < 20; i++) for (const r of rings) r.push(line(40, i))
  assert.deepEqual(rings.map((r) => r.length), [5, 5])
  assert.ok(budget.bytes <= budget.total)
  // More rings: the quiet ones are trimmed to the smaller share as soon as the budget is passed.
  const more = Array.from({ length: 3 }, () => new Ring({ budget }))
  more[0].push(line(40, 99))
  assert.deepEqual([...rings, ...more].map((r) => r.length), [2, 2, 1, 0, 0])
  assert.ok(budget.bytes <= budget.total)
  // A released ring gives its bytes back.
  const before = budget.bytes
  rings[0].release()
  assert.equal(budget.bytes, before - 2 * (40 + RECORD_OVERHEAD))
  assert.equal(budget.rings.size, 4)
})
