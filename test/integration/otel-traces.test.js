'use strict'

// OpenTelemetry traces with no code change (docs/otel.md), on a real daemon: two apps with
// `otel` on, a cluster app (CommonJS) calling a fork app (ES module), both with no OpenTelemetry
// code; a request through them reaches a real OTLP/HTTP receiver (protobuf, the SDK's default
// protocol) as one trace with both services' spans, linked by W3C trace context, each with the
// resource attributes xpm knows. An app off stays uninstrumented; `xpm show` says where it goes.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { startReceiver } = require('../helpers/otlp-receiver')

const missing = (() => { try { require.resolve('@opentelemetry/sdk-node'); return null } catch { return 'the OpenTelemetry optional dependencies are not installed' } })()

test('a request through two apps gives one trace with both services\' spans and xpm\'s resource attributes', { skip: missing ?? false, timeout: 90000 }, async (t) => {
  const h = createHome(t)
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  const [frontPort, backPort] = [await freePort(), await freePort()]
  const dir = fs.mkdtempSync(path.join(h.home, 'apps-'))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'shop', version: '2.3.4' }))
  const file = path.join(dir, 'ecosystem.config.js')
  const common = { OTEL_BSP_SCHEDULE_DELAY: '100' }
  fs.writeFileSync(file, `module.exports = { apps: [
    { name: 'front', script: ${JSON.stringify(fixture('otel-hop.js'))}, instances: 2, namespace: 'shop', otel: { endpoint: ${JSON.stringify(receiver.url)}, metrics: false, logs: false },
      env: ${JSON.stringify({ ...common, PORT: String(frontPort), NEXT_PORT: String(backPort), HOP_NAME: 'front' })} },
    { name: 'back', script: ${JSON.stringify(fixture('otel-hop.mjs'))}, otel: true, env: ${JSON.stringify({ ...common, PORT: String(backPort), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })} },
    { name: 'plain', script: ${JSON.stringify(fixture('echo-http.js'))}, env: { PORT: '0' } }
  ] }\n`)
  const res = await h.run(['start', file], { cwd: dir })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => (await httpGet(frontPort, '/hop').catch(() => null))?.json?.next, { timeout: 30000, message: 'front answering through back' })
  const answer = await httpGet(frontPort, '/hop')
  assert.equal(answer.status, 200)

  // the trace of one request: front's server span → front's client span → back's server span
  let trace
  await waitFor(() => {
    const spans = receiver.spans()
    const backServer = spans.filter((s) => s.resource['service.name'] === 'back' && s.kind === 2)
    for (const b of backServer) {
      const same = spans.filter((s) => s.traceId === b.traceId)
      const client = same.find((s) => s.spanId === b.parentSpanId && s.kind === 3)
      const server = client && same.find((s) => s.spanId === client.parentSpanId && s.kind === 2)
      if (server) { trace = { server, client, back: b }; return true }
    }
    return false
  }, { timeout: 30000, message: 'one trace through front and back' })

  const { server, client, back } = trace
  assert.equal(server.resource['service.name'], 'front')
  assert.equal(client.resource['service.name'], 'front')
  assert.equal(server.resource['service.namespace'], 'shop')
  assert.equal(server.resource['service.version'], '2.3.4', 'the app\'s package.json')
  assert.equal(server.resource['xpm.app'], 'front')
  assert.ok([0, 1].includes(server.resource['xpm.instance']))
  assert.equal(typeof server.resource['xpm.id'], 'number')
  assert.match(server.resource['service.instance.id'], /\/front\/[01]$/)
  assert.equal(typeof server.resource['process.pid'], 'number')
  assert.equal(server.resource['process.runtime.version'], process.versions.node)
  assert.ok(server.resource['host.name'])
  assert.equal(back.resource['service.name'], 'back')
  assert.equal(back.resource['xpm.app'], 'back')
  assert.equal(back.resource['service.namespace'], 'default')

  const list = await h.jlist()
  const frontPids = list.filter((p) => p.name === 'front').map((p) => p.pid)
  assert.ok(frontPids.includes(server.resource['process.pid']), 'the span comes from a front worker')
  assert.ok(!receiver.spans().some((s) => s.resource['service.name'] === 'plain'), 'an app without otel is not instrumented')
  assert.deepEqual(receiver.errors, [])

  const shown = JSON.parse((await h.run(['show', 'front', '--json'])).stdout)
  const row = Array.isArray(shown) ? shown[0] : shown
  assert.equal(row.otel?.traces?.url, `${receiver.url}/v1/traces`)
})
