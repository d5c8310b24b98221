'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { PointRing } = require('../../lib/shared/point-ring')

test('a point ring keeps the newest `limit` points, oldest first, null for missing fields', () => {
  const ring = new PointRing(['at', 'cpu'])
  assert.equal(ring.bytes, 0, 'nothing held before the first point')
  for (let at = 1; at <= 10; at++) ring.push({ at, cpu: at === 5 ? null : at * 10 }, 4)
  assert.deepEqual(ring.toArray(), [{ at: 7, cpu: 70 }, { at: 8, cpu: 80 }, { at: 9, cpu: 90 }, { at: 10, cpu: 100 }])
  assert.deepEqual(ring.values('cpu', 2), [90, 100])
  assert.deepEqual(ring.toArray({ since: 9, fields: ['cpu'] }), [{ cpu: 90 }, { cpu: 100 }])
  assert.equal(ring.bytes, 4 * 2 * 8)
})

test('a lower limit gives memory back; missing values survive a resize', () => {
  const ring = new PointRing(['at', 'cpu'])
  for (let at = 1; at <= 20; at++) ring.push({ at, cpu: at % 2 ? null : at }, 20)
  ring.push({ at: 21, cpu: 21 }, 3)
  assert.equal(ring.capacity, 3)
  assert.deepEqual(ring.toArray(), [{ at: 19, cpu: null }, { at: 20, cpu: 20 }, { at: 21, cpu: 21 }])
  assert.deepEqual(ring.values('nope'), [])
})
