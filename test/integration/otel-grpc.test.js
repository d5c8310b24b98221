'use strict'

// `otel: { protocol: 'grpc' }` on a real daemon and a real OTLP/gRPC receiver (@grpc/grpc-js,
// the collector's Export services): the app's spans (the SDK's gRPC trace exporter), the
// daemon's figures of each process and its log lines (the daemon's gRPC metrics and logs
// exporters) all arrive over gRPC, and nothing over HTTP.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { startReceiver } = require('../helpers/otlp-receiver')

const missing = (() => {
  try {
    for (const name of ['@opentelemetry/sdk-node', '@opentelemetry/exporter-trace-otlp-grpc', '@opentelemetry/exporter-metrics-otlp-grpc', '@opentelemetry/exporter-logs-otlp-grpc', '@grpc/grpc-js']) require.resolve(name)
    return false
  } catch { return 'the OpenTelemetry optional dependencies (gRPC exporters) are not installed' }
})()

test('traces, the daemon\'s metrics and log lines arrive over OTLP/gRPC', { skip: missing, timeout: 90000 }, async (t) => {
  const h = createHome(t)
  const receiver = await startReceiver({ grpc: true })
  t.after(() => receiver.close())
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(h.home, 'apps-'))
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({
    apps: [{
      name: 'rpc',
      script: fixture('otel-hop.js'),
      instances: 2,
      otel: { endpoint: receiver.grpcUrl, protocol: 'grpc' },
      env: { PORT: String(port), HOP_NAME: 'rpc', OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_BSP_SCHEDULE_DELAY: '100' }
    }]
  })}\n`)
  const res = await h.run(['start', file], { cwd: dir })
  assert.equal(res.code, 0, res.stderr)
  const list = await h.jlist()
  await waitFor(async () => (await httpGet(port, '/hop').catch(() => null))?.status === 200, { timeout: 30000, message: 'rpc answering' })

  const span = await waitFor(() => receiver.spans().find((s) => s.resource['service.name'] === 'rpc' && s.kind === 2), { timeout: 30000, message: 'the request\'s server span over gRPC' })
  assert.equal(span.attributes['http.method'] ?? span.attributes['http.request.method'], 'GET')
  assert.ok(list.some((p) => p.id === span.resource['xpm.id']))

  await waitFor(() => list.every((p) => receiver.points().some((pt) => pt.name === 'process.memory.usage' && pt.attributes['xpm.id'] === p.id && pt.value > 0)),
    { timeout: 30000, message: 'process.memory.usage of every process over gRPC' })
  const line = await waitFor(() => receiver.records().find((r) => /handled a hop/.test(r.body) && r.traceId), { timeout: 30000, message: 'the request\'s log line over gRPC' })
  assert.equal(line.resource['service.name'], 'rpc')

  const signals = new Set(receiver.received.map((r) => r.signal))
  assert.deepEqual([...signals].sort(), ['logs', 'metrics', 'traces'])
  assert.ok(receiver.received.every((r) => r.contentType === 'application/grpc'), 'everything came over gRPC')
  assert.deepEqual(receiver.errors, [])
})
