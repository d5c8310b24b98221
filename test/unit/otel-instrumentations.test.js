'use strict'

// Which auto-instrumentations the bootstrap turns off by itself (lib/otel/instrumentations.js),
// and that the app's OTEL_NODE_ENABLED_INSTRUMENTATIONS / OTEL_NODE_DISABLED_INSTRUMENTATIONS
// still decide, through the official getNodeAutoInstrumentations() that reads them.
const test = require('node:test')
const assert = require('node:assert/strict')
const { defaultsOff } = require('../../lib/otel/instrumentations')

const missing = (() => { try { require.resolve('@opentelemetry/auto-instrumentations-node'); return false } catch { return 'the OpenTelemetry optional dependencies are not installed' } })()

test('fs, net, dns and runtime-node are off unless the environment names instrumentations', () => {
  assert.deepEqual(Object.keys(defaultsOff({})).sort(), ['@opentelemetry/instrumentation-dns', '@opentelemetry/instrumentation-fs', '@opentelemetry/instrumentation-net', '@opentelemetry/instrumentation-runtime-node'])
  assert.ok(Object.values(defaultsOff({})).every((c) => c.enabled === false))
  // the SDK exports metrics itself: the runtime's figures stay
  assert.equal(defaultsOff({ OTEL_METRICS_EXPORTER: 'otlp' })['@opentelemetry/instrumentation-runtime-node'], undefined)
  assert.deepEqual(defaultsOff({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,net' }), {})
  assert.equal(Object.keys(defaultsOff({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: ' ' })).length, 4)
})

test('with the official package: the defaults, and the two variables honoured', { skip: missing }, (t) => {
  const { getNodeAutoInstrumentations } = require('@opentelemetry/auto-instrumentations-node')
  const saved = { on: process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS, off: process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS }
  t.after(() => {
    for (const [k, v] of [['OTEL_NODE_ENABLED_INSTRUMENTATIONS', saved.on], ['OTEL_NODE_DISABLED_INSTRUMENTATIONS', saved.off]]) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })
  const names = () => {
    const list = getNodeAutoInstrumentations(defaultsOff(process.env))
    for (const i of list) i.disable()
    return new Set(list.map((i) => i.instrumentationName))
  }
  delete process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS
  delete process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS
  let on = names()
  for (const name of ['http', 'express', 'undici', 'pg']) assert.ok(on.has(`@opentelemetry/instrumentation-${name}`), name)
  for (const name of ['fs', 'net', 'dns', 'runtime-node']) assert.ok(!on.has(`@opentelemetry/instrumentation-${name}`), name)
  process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS = 'express'
  on = names()
  assert.ok(!on.has('@opentelemetry/instrumentation-express') && on.has('@opentelemetry/instrumentation-http'))
  process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS = 'http,net'
  delete process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS
  on = names()
  assert.deepEqual([...on].sort(), ['@opentelemetry/instrumentation-http', '@opentelemetry/instrumentation-net'])
})
