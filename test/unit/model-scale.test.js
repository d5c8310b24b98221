'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { parseScaleChange, scaleTarget, planScale } = require('../../daemon/model/scale')

test('n, +n and -n; anything else is a bad argument', () => {
  assert.deepEqual(parseScaleChange('4'), { op: 'set', n: 4 })
  assert.deepEqual(parseScaleChange('+2'), { op: 'add', n: 2 })
  assert.deepEqual(parseScaleChange('-1'), { op: 'sub', n: 1 })
  for (const bad of ['', 'max', '1.5', '++1', '2x', '-']) {
    assert.throws(() => parseScaleChange(bad), { code: 'XPM_ERR_BAD_ARGUMENT' }, bad)
  }
})

test('the target count is at least 1', () => {
  assert.equal(scaleTarget(2, { op: 'add', n: 3 }), 5)
  assert.equal(scaleTarget(4, { op: 'sub', n: 3 }), 1)
  assert.equal(scaleTarget(4, { op: 'set', n: 2 }), 2)
  assert.throws(() => scaleTarget(2, { op: 'sub', n: 2 }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /at least 1/ })
  assert.throws(() => scaleTarget(2, { op: 'set', n: 0 }), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

test('scale plans as PM2: the lowest (oldest) go first, new ones fill the lowest gaps, the same count is a no-op whatever the indexes', () => {
  assert.deepEqual(planScale([0, 1], 4), { add: [2, 3], remove: [] })
  assert.deepEqual(planScale([0, 1, 2, 3], 2), { add: [], remove: [0, 1] }, 'PM2 increment-var: 4 → 2 keeps 2 and 3')
  assert.deepEqual(planScale([2, 3], 4), { add: [0, 1], remove: [] }, '… and 2 → 4 reuses 0 and 1')
  assert.deepEqual(planScale([0, 1, 2, 3], 1), { add: [], remove: [0, 1, 2] })
  assert.deepEqual(planScale([0, 2, 3], 4), { add: [1], remove: [] })
  assert.deepEqual(planScale([0, 2, 3], 2), { add: [], remove: [0] })
  assert.deepEqual(planScale([0, 2, 3], 3), { add: [], remove: [] }, 'regression: a gap made `scale 3` stop one and start another')
  assert.deepEqual(planScale([0, 2], 2), { add: [], remove: [] })
  assert.deepEqual(planScale([0, 1], 2), { add: [], remove: [] })
})
