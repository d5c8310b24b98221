'use strict'

// The daemon loads OpenTelemetry only once an app asks for metrics or logs (daemon/otel-switch.js):
// with apps that have it off, no @opentelemetry module is in the require cache (node --test runs
// this file in a process of its own).
const test = require('node:test')
const assert = require('node:assert/strict')
const { EventBus } = require('../../daemon/event-bus')
const { createOtelSwitch } = require('../../daemon/otel-switch')

const loadedOtel = () => Object.keys(require.cache).filter((k) => k.includes(`${require('node:path').sep}@opentelemetry${require('node:path').sep}`))
const missing = (() => { try { require.resolve('@opentelemetry/sdk-metrics'); return false } catch { return 'the OpenTelemetry optional dependencies are not installed' } })()

test('no @opentelemetry module while every app has otel off; loaded at the first app with metrics on', { skip: missing }, async () => {
  const supervisor = new EventBus()
  supervisor.apps = new Map([['plain', { spec: { name: 'plain', otel: null, env: {} } }], ['traces-only', { spec: { name: 'traces-only', otel: { traces: true, metrics: false, logs: false, endpoint: null, protocol: null, headers: null, sampler: null }, env: {} } }]])
  supervisor.allInstances = () => []
  const sw = createOtelSwitch({ supervisor, metrics: null, logSink: null, logger: null, otelEnv: {} })
  supervisor.emit('change')
  assert.equal(sw.loaded, false)
  assert.deepEqual(loadedOtel(), [])
  assert.equal(sw.describe(supervisor.apps.get('plain').spec), null)
  assert.equal(sw.describe(supervisor.apps.get('traces-only').spec).traces.url, 'http://localhost:4318/v1/traces')

  supervisor.apps.set('api', { spec: { name: 'api', otel: { traces: true, metrics: true, logs: false, endpoint: 'http://127.0.0.1:9', protocol: 'http/json', headers: null, sampler: null }, env: {} } })
  supervisor.emit('change')
  assert.equal(sw.loaded, true)
  assert.ok(loadedOtel().length > 0)
  const described = sw.describe(supervisor.apps.get('api').spec)
  assert.deepEqual([described.metrics.url, described.metrics.exported, described.logs], ['http://127.0.0.1:9/v1/metrics', 0, null])
  await sw.close()
})
