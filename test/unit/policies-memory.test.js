'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { checkMemory } = require('../../daemon/policies/memory-limit')
const { holdUnderWatch } = require('../../daemon/model/watch-crash')

const MB = 1024 * 1024

test('over the limit: a reason with both sizes; at or under it, or no limit: nothing', () => {
  const over = checkMemory({ limit: 80 * MB, sample: { memory: 93.45 * MB, at: 2000 }, pid: 7, since: 1000 })
  assert.equal(over.reason, 'memory (93.5M > 80M)')
  assert.equal(over.rss, 93.45 * MB)
  assert.equal(checkMemory({ limit: 80 * MB, sample: { memory: 80 * MB }, pid: 7 }), null)
  assert.equal(checkMemory({ limit: null, sample: { memory: 900 * MB }, pid: 7 }), null)
  assert.equal(checkMemory({ limit: 80 * MB, sample: null, pid: 7 }), null)
  assert.equal(checkMemory({ limit: 80 * MB, sample: { memory: null }, pid: 7 }), null)
})

test('a sample of an earlier process of the slot never triggers', () => {
  assert.equal(checkMemory({ limit: MB, sample: { memory: 2 * MB, at: 500 }, pid: 7, since: 1000 }), null)
  assert.equal(checkMemory({ limit: MB, sample: { memory: 2 * MB, pid: 6 }, pid: 7 }), null)
  assert.equal(checkMemory({ limit: MB, sample: { memory: 2 * MB }, pid: 0 }), null)
})

test('under watch a crash waits for a change; stopped and errored verdicts are kept', () => {
  const restart = { action: 'restart', delay: 100, crashTimes: [1], unstableRuns: 1 }
  assert.deepEqual(holdUnderWatch({ watch: false }, restart), restart)
  const held = holdUnderWatch({ watch: ['/app'] }, restart)
  assert.equal(held.action, 'errored')
  assert.match(held.reason, /waiting for a file change/)
  assert.deepEqual(held.crashTimes, [1])
  const stopped = { action: 'stopped', reason: 'exit code 3 is in stop_exit_codes' }
  assert.equal(holdUnderWatch({ watch: ['/app'] }, stopped), stopped)
})
