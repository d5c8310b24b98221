'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { pm2IoMetrics } = require('../../daemon/pm2-io')

test('@pm2/io metrics: axm:monitor messages are kept as sent; other messages, and oversized ones, are not', () => {
  const data = { 'test-probe': { value: 3, unit: '', type: 'metric' }, 'Event Loop Latency p95': { value: 1.2, unit: 'ms' } }
  assert.deepEqual(pm2IoMetrics({ type: 'axm:monitor', data }), data)
  assert.notEqual(pm2IoMetrics({ type: 'axm:monitor', data }), data, 'a copy')
  for (const msg of [null, 'ready', { type: 'process:msg', data }, { type: 'axm:monitor', data: [1] }, { type: 'axm:monitor', data: null }]) {
    assert.equal(pm2IoMetrics(msg), undefined, JSON.stringify(msg))
  }
  assert.equal(pm2IoMetrics({ type: 'axm:monitor', data: { big: { value: 'x'.repeat(20000) } } }), undefined)
  const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`m${i}`, { value: i }]))
  assert.equal(pm2IoMetrics({ type: 'axm:monitor', data: many }), undefined)
})
