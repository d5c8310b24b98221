'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { EventBus } = require('../../daemon/event-bus')
const { createPolicies } = require('../../daemon/policies')
const { waitFor } = require('../helpers/wait')

const MB = 1024 * 1024

// A supervisor with one app of two instances, and a reloader that records which instance was
// replaced and with which reason.
function setup (spec) {
  const supervisor = new EventBus()
  const app = { name: 'api', spec: { name: 'api', cwd: '/tmp', watch: false, cronRestart: null, maxMemoryRestart: null, ...spec }, instances: [] }
  app.instances = [0, 1].map((index) => ({ id: index, index, app, name: 'api', status: 'online', pid: 100 + index, onlineSince: 0 }))
  supervisor.apps = new Map([['api', app]])
  supervisor.resolve = (target) => app.instances.filter((i) => String(i.id) === target)
  supervisor.allInstances = () => app.instances
  const replaced = []
  app.reload = async (instances, { reason }) => {
    for (const inst of instances) replaced.push([inst.id, reason])
    return { replaced: instances.map((i) => ({ id: i.id })), restarted: [] }
  }
  const metrics = new EventEmitter()
  const policies = createPolicies({ supervisor, metrics, logger: null })
  return { supervisor, app, metrics, policies, replaced }
}

test('memory: only the instance over the limit is replaced, once while it is being replaced', async (t) => {
  const { metrics, policies, replaced } = setup({ maxMemoryRestart: 80 * MB })
  t.after(() => policies.close())
  const samples = new Map([[0, { memory: 50 * MB, at: 1 }], [1, { memory: 90 * MB, at: 1 }]])
  metrics.emit('sample', samples)
  metrics.emit('sample', samples) // the replacement of 1 is still running (or waiting its backoff)
  await waitFor(() => replaced.length, { timeout: 2000, message: 'the memory restart' })
  await new Promise(setImmediate)
  assert.deepEqual(replaced, [[1, 'memory (90.0M > 80M)']])
})

test('cron is armed while the app runs, disarmed by a user stop, re-armed by the next launch, closed on delete', (t) => {
  const { supervisor, policies } = setup({ cronRestart: '0 3 * * *' })
  t.after(() => policies.close())
  assert.deepEqual(Object.keys(policies.state().cron), ['api'])
  const instances = supervisor.apps.get('api').instances
  supervisor.emit('command', { type: 'stop', instances: [instances[0]] })
  assert.deepEqual(Object.keys(policies.state().cron), ['api'], 'one instance still runs')
  supervisor.emit('command', { type: 'stop', instances })
  assert.deepEqual(policies.state().cron, {})
  supervisor.emit('status', { id: 0, to: 'launching' })
  supervisor.emit('change')
  assert.deepEqual(Object.keys(policies.state().cron), ['api'])
  supervisor.apps.delete('api')
  supervisor.emit('change')
  assert.deepEqual(policies.state(), { watching: [], cron: {}, live: [] })
})

test('an app registered stopped (restored, never launched) arms nothing until it launches', (t) => {
  const supervisor = new EventBus()
  const app = { name: 'job', spec: { name: 'job', cwd: '/tmp', watch: false, cronRestart: '0 3 * * *', maxMemoryRestart: null }, instances: [] }
  app.instances = [{ id: 5, index: 0, app, name: 'job', status: 'stopped', pid: 0 }]
  supervisor.apps = new Map([['job', app]])
  supervisor.allInstances = () => app.instances
  const policies = createPolicies({ supervisor, metrics: null, logger: null })
  t.after(() => policies.close())
  assert.deepEqual(policies.state().cron, {})
  supervisor.emit('status', { id: 5, to: 'launching' })
  supervisor.emit('change')
  assert.deepEqual(Object.keys(policies.state().cron), ['job'])
  assert.deepEqual(policies.state().live, [5])
})
