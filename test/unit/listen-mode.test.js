'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { listenModeChange, refuseModeChangeOnReload } = require('../../daemon/model/listen-mode')

test('listenModeChange: reuse_port on or off is a change of mode; anything else is not', () => {
  assert.deepEqual(listenModeChange({ reusePort: false }, { reusePort: true }), { from: 'round-robin', to: 'reuse_port' })
  assert.deepEqual(listenModeChange({ reusePort: true }, {}), { from: 'reuse_port', to: 'round-robin' })
  assert.equal(listenModeChange({}, { reusePort: false }), null)
  assert.equal(listenModeChange({ reusePort: true, env: { A: '1' } }, { reusePort: true, env: { A: '2' } }), null)
})

const app = (name, reusePort, pids) => ({ name, deleted: false, desiredSpec: { name, reusePort }, instances: pids.map((pid) => ({ processes: () => pid ? [{ pid }] : [] })) })

test('a reload that would turn reuse_port on or off for an app with processes is refused with XPM_ERR_RELOAD_MODE_CHANGE; a stopped or new app is not', () => {
  const apps = new Map([['api', app('api', false, [11, 12])], ['idle', app('idle', false, [0])], ['web', app('web', true, [21])]])
  assert.throws(() => refuseModeChangeOnReload(apps, [{ name: 'idle', reusePort: true }, { name: 'api', reusePort: true }]), (err) => {
    assert.equal(err.code, 'XPM_ERR_RELOAD_MODE_CHANGE')
    assert.equal(err.exitCode, 2)
    assert.match(err.message, /^Reload of api refused: its new spec turns reuse_port on.*nothing was changed.*`xpm restart`/)
    assert.deepEqual(err.details, { app: 'api', from: 'round-robin', to: 'reuse_port' })
    return true
  })
  assert.throws(() => refuseModeChangeOnReload(apps, [{ name: 'web' }]), /turns reuse_port off/)
  assert.doesNotThrow(() => refuseModeChangeOnReload(apps, [{ name: 'idle', reusePort: true }, { name: 'new', reusePort: true }, { name: 'web', reusePort: true }]))
  assert.doesNotThrow(() => refuseModeChangeOnReload(apps, null))
})

test('a restart that turns reuse_port on stops every process of the app before any starts, and counts a restart for each', async () => {
  const { Supervisor } = require('../../daemon/supervisor')
  const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
  const fake = fakeLauncher()
  const sup = new Supervisor({ launcher: fake.launcherFor })
  const spec = (extra) => fakeSpec('api', { instances: 2, execMode: 'cluster', ...extra })
  await sup.start([spec()])
  const [first, slow] = fake.launched
  // the second worker takes a while to let go (in-flight requests)
  slow.signal = (sig) => { setTimeout(() => slow.markExited(null, sig), 100); return true }
  let launchedWhenSlowExited = null
  slow.once('exit', () => { launchedWhenSlowExited = fake.launched.length })
  const result = await sup.restart('api', { specs: [spec({ reusePort: true })] })
  assert.deepEqual(result.failures, [])
  assert.ok(first.exited && slow.exited)
  assert.equal(launchedWhenSlowExited, 2, 'no worker of the new mode started beside one of the old')
  assert.equal(fake.live().length, 2)
  assert.ok(fake.live().every((h) => h.spec.reusePort === true))
  assert.deepEqual(sup.list().map((p) => [p.status, p.restarts]), [['online', 1], ['online', 1]])
})
