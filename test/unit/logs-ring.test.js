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

test('a ring grows its slots as lines come (an idle process holds none), keeping order across the wrap and the growth', () => {
  const ring = new Ring({ maxLines: 40, maxBytes: 1e9, budget: null })
  assert.equal(ring.items.length, 0)
  const expected = []
  for (let i = 0; i < 100; i++) {
    ring.push(line(10, i))
    expected.push(i)
    if (expected.length > 40) expected.shift()
    // bytes-trim from the head before the ring is full, so the growth starts from a moved head
    if (i === 20) { ring.trim(ring.bytes - 3 * (10 + RECORD_OVERHEAD), 0); expected.splice(0, 3) }
    assert.deepEqual(ring.toArray().map((r) => r.seq), expected)
    assert.equal(ring.first().seq, expected[0])
  }
  assert.equal(ring.items.length, 40)
  ring.clear()
  assert.equal(ring.items.length, 0)
  ring.push(line(10, 'again'))
  assert.deepEqual(ring.toArray().map((r) => r.seq), ['again'])
})
