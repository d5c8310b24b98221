'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { History } = require('../../daemon/metrics/history')

test('keeps points oldest first until full', () => {
  const h = new History(3)
  assert.deepEqual(h.toArray(), [])
  assert.equal(h.last(), undefined)
  h.push(1)
  h.push(2)
  assert.deepEqual(h.toArray(), [1, 2])
  assert.equal(h.last(), 2)
})

test('drops the oldest point once full', () => {
  const h = new History(3)
  for (let i = 1; i <= 7; i++) h.push(i)
  assert.deepEqual(h.toArray(), [5, 6, 7])
  assert.equal(h.length, 3)
  assert.equal(h.last(), 7)
})

test('defaults to 120 points and clears', () => {
  const h = new History()
  for (let i = 0; i < 200; i++) h.push(i)
  assert.equal(h.toArray().length, 120)
  assert.equal(h.toArray()[0], 80)
  h.clear()
  assert.deepEqual(h.toArray(), [])
})

test('rejects a size that is not a positive integer', () => {
  assert.throws(() => new History(0), TypeError)
  assert.throws(() => new History(2.5), TypeError)
})
