'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { parseBytes, parseDuration, formatBytes, formatDuration } = require('../../lib/shared/units')

test('parseBytes reads K, M, G (multiples of 1024) and plain numbers as bytes', () => {
  assert.equal(parseBytes('300K'), 300 * 1024)
  assert.equal(parseBytes('10M'), 10 * 1024 * 1024)
  assert.equal(parseBytes('1G'), 1024 ** 3)
  assert.equal(parseBytes('1.5M'), 1.5 * 1024 * 1024)
  assert.equal(parseBytes('10mb'), 10 * 1024 * 1024)
  assert.equal(parseBytes('512B'), 512)
  assert.equal(parseBytes(4096), 4096)
})

test('parseBytes rejects a string without a unit, quoting the value', () => {
  for (const bad of ['10', '10X', 'M', '', '-1M', -5, NaN, null, true]) {
    assert.throws(() => parseBytes(bad), (err) => err.code === 'XPM_ERR_CONFIG_INVALID' && err.exitCode === 2)
  }
  assert.throws(() => parseBytes('10X', '`log_max_size`'), {
    message: 'Expected `log_max_size` to be a size like "300K", "10M", "1G" or a number of bytes, got "10X"'
  })
})

test('parseDuration reads ms, s, m, h, d and plain numbers as milliseconds', () => {
  assert.equal(parseDuration('200ms'), 200)
  assert.equal(parseDuration('5s'), 5000)
  assert.equal(parseDuration('1.5s'), 1500)
  assert.equal(parseDuration('2m'), 120000)
  assert.equal(parseDuration('1h'), 3600000)
  assert.equal(parseDuration('1d'), 86400000)
  assert.equal(parseDuration(750), 750)
  assert.equal(parseDuration(0), 0)
})

test('parseDuration rejects a string without a unit and says what it expected', () => {
  assert.throws(() => parseDuration('5000'), {
    code: 'XPM_ERR_CONFIG_INVALID',
    message: 'Expected a duration like "200ms", "5s", "2m", "1h" or a number of milliseconds, got "5000"'
  })
  for (const bad of ['5 sec', '5S', 'soon', -1, Infinity, {}]) assert.throws(() => parseDuration(bad), { code: 'XPM_ERR_CONFIG_INVALID' })
})

test('formatBytes and formatDuration give the short form back', () => {
  assert.equal(formatBytes(10485760), '10M')
  assert.equal(formatBytes(1500), '1500B')
  assert.equal(formatDuration(60000), '1m')
  assert.equal(formatDuration(1500), '1500ms')
  assert.equal(formatDuration(0), '0ms')
})
