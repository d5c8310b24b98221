'use strict'

// The lifecycle log records of daemon/otel/lifecycle-events.js, driven by a bare EventBus with
// the model's events: a crash, a restart, and a reload as events of its own (each process it
// replaced, a replacement rolled back, the reload as a whole with its result).
const test = require('node:test')
const assert = require('node:assert/strict')
const { EventBus } = require('../../daemon/event-bus')
const { followLifecycle } = require('../../daemon/otel/lifecycle-events')

test('crashes, restarts and reloads of one app become their own records, with the journal\'s reason', () => {
  const bus = new EventBus()
  const records = []
  const off = followLifecycle(bus, 'api', (r) => records.push(r))
  bus.emit('status', { id: 3, name: 'api', from: 'online', to: 'waiting restart', reason: 'crash (exit code 1)', delay: 100 })
  bus.emit('restart', { id: 3, name: 'api', instance: 1, reason: 'crash (exit code 1)' })
  bus.emit('restart', { id: 2, name: 'api', instance: 0, reason: 'reload', replaced: true, pid: 200, oldPid: 100 })
  bus.emit('replace-failed', { id: 3, name: 'api', instance: 1, pid: 301, oldPid: 300, cause: 'memory (93.4M > 80M)', reason: 'replacement api[1] (pid 301) was not ready after 1000 ms' })
  bus.emit('reloaded', { app: 'api', reason: 'reload', result: 'success' })
  bus.emit('reloaded', { app: 'api', reason: 'watch: src/a.js', result: 'failed' })
  bus.emit('reloaded', { app: 'web', reason: 'reload', result: 'success' }) // another app's
  bus.emit('restart', { id: 9, name: 'web', instance: 0, reason: 'reload', replaced: true, pid: 2, oldPid: 1 })

  const byName = (name) => records.filter((r) => r.attributes['event.name'] === name)
  assert.deepEqual(records.map((r) => r.attributes['event.name']), ['xpm.process.crash', 'xpm.process.restart', 'xpm.process.reload', 'xpm.process.reload_failed', 'xpm.app.reload', 'xpm.app.reload'])

  const [reload] = byName('xpm.process.reload')
  assert.deepEqual(reload.attributes, { 'event.name': 'xpm.process.reload', 'xpm.id': 2, 'xpm.instance': 0, 'xpm.reason': 'reload', 'process.pid': 200, 'xpm.old_pid': 100 })
  assert.equal(reload.severityText, 'INFO')
  assert.equal(reload.body, 'api[0] reload: reload (pid 100 → 200)')

  const [failed] = byName('xpm.process.reload_failed')
  assert.equal(failed.severityText, 'WARN')
  assert.equal(failed.attributes['xpm.reason'], 'memory (93.4M > 80M)')
  assert.match(failed.attributes['xpm.error'], /not ready after 1000 ms/)

  const [ok, bad] = byName('xpm.app.reload')
  assert.deepEqual(ok.attributes, { 'event.name': 'xpm.app.reload', 'xpm.reason': 'reload', 'xpm.reload.result': 'success' })
  assert.equal(ok.severityText, 'INFO')
  assert.equal(ok.body, 'api reload (reload): success')
  assert.equal(bad.severityText, 'WARN')
  assert.equal(bad.attributes['xpm.reason'], 'watch: src/a.js')

  assert.equal(byName('xpm.process.restart')[0].attributes['xpm.reason'], 'crash (exit code 1)')

  off()
  bus.emit('reloaded', { app: 'api', reason: 'reload', result: 'success' })
  assert.equal(records.length, 6, 'nothing after unsubscribe')
  assert.equal(bus.listenerCount('reloaded'), 0)
})
