'use strict'

// Known gaps between the intent the saved state holds and the commands accepted (found by the
// review of issue 22, not fixed: each needs a decision on how a count change is recorded at
// accept). Marked todo: they show the gap and pass once it is closed. The real Supervisor and
// App with a launcher that forks nothing; the saved state is what state.json would hold.
const test = require('node:test')
const assert = require('node:assert/strict')
const { Supervisor } = require('../../daemon/supervisor')
const { appsSnapshot } = require('../../daemon/persistence/snapshot')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')

const spec = (name, instances, extra = {}) => fakeSpec(name, { instances, killTimeout: 50, ...extra })
const saved = (sup) => appsSnapshot(sup).map((a) => [a.spec.name, a.spec.instances, a.spec.env.V ?? null])
const turn = () => new Promise(setImmediate)

test('a start that redefines a running app with more instances: saved with its new count while the old processes stop', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  const starting = sup.start([spec('api', 3, { env: { V: '2' } })])
  await turn()
  try {
    assert.deepEqual(saved(sup), [['api', 3, '2']], 'a daemon crash now restores the app as the start defined it')
  } finally {
    await starting
  }
})

test('a scale queued behind a start: saved with its new count from the moment it is accepted', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  const restarting = sup.restart('api')
  const scaling = sup.scale('api', '4')
  await turn()
  try {
    assert.deepEqual(saved(sup), [['api', 4, null]])
  } finally {
    await Promise.all([restarting, scaling])
  }
})

test('a restart with a new spec cancelled by a stop: the live app and the saved state agree on the spec', async () => {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  await sup.start([spec('api', 1)])
  const restarting = sup.restart('api', { specs: [spec('api', 1, { env: { V: '2' } })] }).catch((err) => err)
  await sup.stop('api')
  await restarting
  await sup.startTarget('api')
  assert.deepEqual(saved(sup), [['api', 1, '2']])
  assert.equal(sup.apps.get('api').spec.env.V, '2', 'the running app has the spec a restore would give it')
})
