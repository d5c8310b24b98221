'use strict'

// OpenTelemetry traces with no code change (docs/otel.md), on a real daemon: three apps with
// `otel` on and no OpenTelemetry code, front (CommonJS, cluster) → mid (ES module, cluster) →
// back (CommonJS, fork); a request through them reaches a real OTLP/HTTP receiver (protobuf, the
// SDK's default protocol) as one trace with every service's spans, linked by W3C trace context,
// each with the resource attributes xpm knows. An app without otel stays uninstrumented; `xpm
// show` says where the traces go.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { startReceiver } = require('../helpers/otlp-receiver')

const missing = (() => { try { require.resolve('@opentelemetry/sdk-node'); return false } catch { return 'the OpenTelemetry optional dependencies are not installed' } })()

test('a request through three apps gives one trace with every service\'s spans and xpm\'s resource attributes', { skip: missing, timeout: 90000 }, async (t) => {
  const h = createHome(t)
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  const [frontPort, midPort, backPort] = [await freePort(), await freePort(), await freePort()]
  const dir = fs.mkdtempSync(path.join(h.home, 'apps-'))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'shop', version: '2.3.4' }))
  // an app that sets up OpenTelemetry itself (its package.json names the SDK): left alone
  const ownDir = fs.mkdtempSync(path.join(h.home, 'own-'))
  fs.writeFileSync(path.join(ownDir, 'package.json'), JSON.stringify({ name: 'own', dependencies: { '@opentelemetry/sdk-node': '^0.200.0' } }))
  const ownPort = await freePort()
  const file = path.join(dir, 'ecosystem.config.js')
  const common = { OTEL_BSP_SCHEDULE_DELAY: '100' }
  fs.writeFileSync(file, `module.exports = { apps: [
    { name: 'front', script: ${JSON.stringify(fixture('otel-hop.js'))}, instances: 2, namespace: 'shop', otel: { endpoint: ${JSON.stringify(receiver.url)}, metrics: false, logs: false },
      env: ${JSON.stringify({ ...common, PORT: String(frontPort), NEXT_PORT: String(midPort), HOP_NAME: 'front' })} },
    { name: 'mid', script: ${JSON.stringify(fixture('otel-hop.mjs'))}, instances: 2, otel: { metrics: false, logs: false }, env: ${JSON.stringify({ ...common, PORT: String(midPort), NEXT_PORT: String(backPort), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })} },
    { name: 'back', script: ${JSON.stringify(fixture('otel-hop.js'))}, otel: true, env: ${JSON.stringify({ ...common, PORT: String(backPort), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })} },
    { name: 'own', script: ${JSON.stringify(fixture('otel-hop.js'))}, cwd: ${JSON.stringify(ownDir)}, otel: { metrics: false, logs: false }, env: ${JSON.stringify({ ...common, PORT: String(ownPort), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })} },
    { name: 'plain', script: ${JSON.stringify(fixture('echo-http.js'))}, env: { PORT: '0' } }
  ] }\n`)
  const res = await h.run(['start', file], { cwd: dir })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => (await httpGet(frontPort, '/hop').catch(() => null))?.json?.next, { timeout: 30000, message: 'front answering through mid and back' })
  const answer = await httpGet(frontPort, '/hop')
  assert.equal(answer.status, 200)

  // the trace of one request: front server → front client → mid server → mid client → back server
  let trace
  await waitFor(() => {
    const spans = receiver.spans()
    const parentOf = (span, kind, service) => spans.find((s) => s.traceId === span.traceId && s.spanId === span.parentSpanId && s.kind === kind && s.resource['service.name'] === service)
    for (const back of spans.filter((s) => s.resource['service.name'] === 'back' && s.kind === 2)) {
      const midClient = parentOf(back, 3, 'mid')
      const mid = midClient && parentOf(midClient, 2, 'mid')
      const client = mid && parentOf(mid, 3, 'front')
      const server = client && parentOf(client, 2, 'front')
      if (server) { trace = { server, client, mid, back }; return true }
    }
    return false
  }, { timeout: 30000, message: 'one trace through front, mid and back' })

  const { server, client, mid, back } = trace
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
  assert.equal(mid.resource['xpm.app'], 'mid')
  assert.ok([0, 1].includes(mid.resource['xpm.instance']), 'an ES module in cluster mode')
  assert.equal(back.resource['service.name'], 'back')
  assert.equal(back.resource['xpm.app'], 'back')
  assert.equal(back.resource['service.namespace'], 'default')

  const list = await h.jlist()
  const frontPids = list.filter((p) => p.name === 'front').map((p) => p.pid)
  assert.ok(frontPids.includes(server.resource['process.pid']), 'the span comes from a front worker')
  assert.ok(!receiver.spans().some((s) => s.resource['service.name'] === 'plain'), 'an app without otel is not instrumented')
  assert.equal((await httpGet(ownPort, '/hop')).status, 200)
  const ownErr = await waitFor(async () => {
    const text = (await h.run(['logs', 'own', '--err', '--lines', '20', '--nostream'])).stdout
    return /sets up OpenTelemetry itself \(package\.json depends on @opentelemetry\/sdk-node\); xpm leaves it alone/.test(text) && text
  }, { timeout: 15000, message: 'own\'s error log saying it is left alone' })
  assert.ok(ownErr)
  await httpGet(frontPort, '/hop') // its spans, if any, would have gone out with these
  await waitFor(() => receiver.spans().filter((s) => s.resource['service.name'] === 'front').length >= 4, { timeout: 15000, message: 'the later request\'s spans' })
  assert.ok(!receiver.spans().some((s) => s.resource['service.name'] === 'own'), 'no spans from the app that sets up OpenTelemetry itself')
  // the hops' outgoing connections make no net or dns spans of their own (off by default)
  assert.deepEqual(receiver.spans().filter((s) => /^(tcp|ipc|tls)\.connect|^dns\./.test(s.name)).map((s) => s.name), [])
  assert.deepEqual(receiver.errors, [])

  const shown = JSON.parse((await h.run(['show', 'front', '--json'])).stdout)
  const row = Array.isArray(shown) ? shown[0] : shown
  assert.equal(row.otel?.traces?.url, `${receiver.url}/v1/traces`)
})

test('a stop sends the spans the app still holds (flushed at the drain, before the stop signal)', { skip: missing, timeout: 60000 }, async (t) => {
  const h = createHome(t)
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  for (const mode of ['fork', 'cluster']) {
    const port = await freePort()
    const name = `solo-${mode}`
    // spans would otherwise wait ten minutes in the app's batch
    const env = { PORT: String(port), OTEL_BSP_SCHEDULE_DELAY: '600000', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }
    let res = await h.run(['start', fixture('otel-hop.js'), '--name', name, '--otel', '--exec-mode', mode], { env })
    assert.equal(res.code, 0, res.stderr)
    await waitFor(async () => (await httpGet(port, '/hop').catch(() => null))?.status === 200, { timeout: 30000, message: `${name} answering` })
    res = await h.run(['stop', name])
    assert.equal(res.code, 0, res.stderr)
    await waitFor(() => receiver.spans().some((s) => s.resource['service.name'] === name && s.kind === 2), { timeout: 15000, message: `${name}'s server span after the stop` })
  }
})
