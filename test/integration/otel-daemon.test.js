'use strict'

// The daemon's own OpenTelemetry export (docs/otel.md), on a real daemon and a real OTLP/HTTP
// receiver (http/json): each process's figures arrive with the semantic conventions' names and
// xpm's attributes; each log line arrives as a log record, with the trace id of the request it
// was written in, a restart as a record with its reason and a reload as records of its own; a collector that answers 503, then
// one that is gone, leaves the app serving and the drops counted in `xpm show` and on /metrics.
// (A daemon whose apps have otel off loads none of it: test/unit/otel-switch.test.js and
// module-graph.test.js.)
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { startReceiver } = require('../helpers/otlp-receiver')
const { startLoad } = require('../helpers/load')

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024

const missing = (() => { try { require.resolve('@opentelemetry/sdk-node'); return false } catch { return 'the OpenTelemetry optional dependencies are not installed' } })()

function writeFile (h, apps) {
  const dir = fs.mkdtempSync(path.join(h.home, 'apps-'))
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps })}\n`)
  return { dir, file }
}

const showOtel = async (h, name) => JSON.parse((await h.run(['show', name, '--json'])).stdout)[0].otel

test('metrics with xpm\'s attributes, log lines with their trace id, and a failing collector that costs nothing but drops', { skip: missing, timeout: 120000 }, async (t) => {
  const h = createHome(t)
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  const [port, metricsPort] = [await freePort(), await freePort()]
  const { dir, file } = writeFile(h, [{
    name: 'api',
    script: fixture('otel-hop.js'),
    instances: 2,
    otel: { endpoint: receiver.url, protocol: 'http/json' },
    env: { PORT: String(port), HOP_NAME: 'api', OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_BSP_SCHEDULE_DELAY: '100' }
  }])
  let res = await h.run(['start', file], { cwd: dir, env: { XPM_METRICS: `127.0.0.1:${metricsPort}` } })
  assert.equal(res.code, 0, res.stderr)
  const list = await h.jlist()
  await waitFor(async () => (await httpGet(port, '/hop').catch(() => null))?.status === 200, { timeout: 30000, message: 'api answering' })

  // metrics: every process, by the semantic conventions' names, with its xpm.* attributes
  await waitFor(() => list.every((p) => receiver.points().some((pt) => pt.name === 'process.memory.usage' && pt.attributes['xpm.id'] === p.id && pt.value > 0)),
    { timeout: 20000, message: 'process.memory.usage of every process' })
  const points = receiver.points()
  for (const p of list) {
    const mine = points.filter((pt) => pt.attributes['xpm.id'] === p.id)
    const names = new Set(mine.map((pt) => pt.name))
    for (const name of ['process.cpu.utilization', 'process.memory.usage', 'xpm.process.restarts', 'xpm.process.status', 'xpm.process.up']) assert.ok(names.has(name), `${name} of process ${p.id}`)
    const mem = mine.find((pt) => pt.name === 'process.memory.usage')
    assert.equal(mem.unit, 'By')
    assert.equal(mem.attributes['xpm.instance'], p.instance)
    assert.equal(mem.attributes['process.pid'], p.pid)
    assert.equal(mem.resource['service.name'], 'api')
    assert.equal(mem.resource['xpm.app'], 'api')
  }
  await waitFor(() => list.every((p) => receiver.points().some((pt) => pt.name === 'xpm.process.status' && pt.attributes['xpm.id'] === p.id && pt.attributes['xpm.status'] === 'online')),
    { timeout: 20000, message: 'xpm.process.status online for every process' })

  // logs: the pino line written inside the request carries the request's trace id
  await httpGet(port, '/hop')
  let line
  await waitFor(() => {
    line = receiver.records().find((r) => /handled a hop/.test(r.body) && r.traceId)
    return line
  }, { timeout: 20000, message: 'the request\'s log line as a log record with a trace id' }).catch((err) => { throw new Error(`${err.message}\n${JSON.stringify(receiver.records().slice(0, 5), null, 1)}\n${receiver.received.filter((r) => r.signal === 'logs').length} logs requests`) })
  assert.equal(line.severityText, 'INFO')
  assert.equal(line.resource['service.name'], 'api')
  assert.ok(list.some((p) => p.id === line.attributes['xpm.id']))
  await waitFor(() => receiver.spans().some((s) => s.traceId === line.traceId && s.spanId === line.spanId), { timeout: 20000, message: 'the span the line names' })

  // a restart is a log record too, with its reason
  res = await h.run(['restart', 'api'])
  assert.equal(res.code, 0, res.stderr)
  const restart = await waitFor(() => receiver.records().find((r) => r.attributes['event.name'] === 'xpm.process.restart'), { timeout: 20000, message: 'the restart as a log record' })
  assert.equal(restart.attributes['xpm.reason'], 'manual')
  assert.match(restart.body, /^api\[[01]\] restart: manual$/)
  await waitFor(async () => (await httpGet(port, '/hop').catch(() => null))?.status === 200, { timeout: 30000, message: 'api answering after the restart' })

  // a reload is events of its own: each process it replaced, and the reload with its result
  res = await h.run(['reload', 'api'])
  assert.equal(res.code, 0, res.stderr)
  const appReload = await waitFor(() => receiver.records().find((r) => r.attributes['event.name'] === 'xpm.app.reload'), { timeout: 20000, message: 'the reload as a log record' })
  assert.deepEqual([appReload.attributes['xpm.reason'], appReload.attributes['xpm.reload.result']], ['reload', 'success'])
  const replaced = await waitFor(() => {
    const found = receiver.records().filter((r) => r.attributes['event.name'] === 'xpm.process.reload')
    return found.length === 2 && found
  }, { timeout: 20000, message: 'a record for each process the reload replaced' })
  assert.deepEqual(replaced.map((r) => r.attributes['xpm.instance']).sort(), [0, 1])
  for (const r of replaced) assert.match(r.body, /^api\[[01]\] reload: reload \(pid \d+ → \d+\)$/)
  assert.equal(receiver.records().filter((r) => r.attributes['event.name'] === 'xpm.process.restart' && r.attributes['xpm.reason'] === 'reload').length, 0, 'a reload is not a restart record')

  let otel = await showOtel(h, 'api')
  assert.equal(otel.metrics.url, `${receiver.url}/v1/metrics`)
  assert.equal(otel.logs.protocol, 'http/json')
  assert.ok(otel.metrics.exported > 0 && otel.logs.exported > 0, JSON.stringify(otel))
  assert.equal(otel.metrics.lastExport.ok, true)

  // a collector that refuses (503), then one that is gone: the app serves on, the daemon answers,
  // and what could not be sent is counted as dropped
  // A load writing a line per request. First a collector that stalls: the lines fill the
  // daemon's bounded queue and the rest are dropped (counted) long before an export times out.
  const rssBefore = rssOf(h.daemonPid())
  receiver.status('hang')
  const load = startLoad(port, { concurrency: 8, keepAlive: true, path: '/hop' })
  t.after(() => load.stop())
  await waitFor(async () => {
    otel = await showOtel(h, 'api')
    return otel.logs.droppedQueueFull > 0
  }, { timeout: 30000, interval: 200, message: 'lines dropped with the queue full while the collector stalls' })
  receiver.status(503)
  const okAt = load.stats.ok
  await waitFor(() => load.stats.ok > okAt + 2000, { timeout: 60000, message: '2000 requests while the collector answers 503' })
  await receiver.close()
  const okBefore = load.stats.ok
  await waitFor(() => load.stats.ok > okBefore + 1000, { timeout: 60000, message: '1000 more requests with the collector gone' })
  await load.stop()
  assert.equal(load.stats.failed, 0, JSON.stringify(load.stats.errors))
  await waitFor(async () => {
    otel = await showOtel(h, 'api')
    return otel.metrics.dropped > 0 && otel.metrics.lastExport.ok === false && otel.logs.dropped > 0
  }, { timeout: 60000, interval: 500, message: 'the drops counted in `xpm show`' })
  const grown = rssOf(h.daemonPid()) - rssBefore
  assert.ok(grown < 48 * 1024 * 1024, `the daemon grew by ${grown} bytes while the collector refused`)
  assert.match(otel.metrics.lastExport.error, /\S/)
  // and on /metrics
  const scrape = (await httpGet(metricsPort, '/metrics')).body
  const dropped = Number(/^xpm_otel_dropped_total\{app="api",signal="metrics"\} (\d+)$/m.exec(scrape)?.[1])
  assert.ok(dropped > 0, scrape.split('\n').filter((l) => l.includes('otel')).join('\n'))
  assert.match(scrape, /^xpm_otel_exported_total\{app="api",signal="logs"\} [1-9]/m)
  res = await h.run(['jlist'])
  assert.equal(res.code, 0)
  assert.ok(JSON.parse(res.stdout).every((p) => p.status === 'online'))
})

test('the daemon\'s own OTEL_* variables serve the apps whose environment has none', { skip: missing, timeout: 60000 }, async (t) => {
  const h = createHome(t)
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  // the daemon starts with them (a systemd unit's Environment=); the app's start does not carry them
  let res = await h.run(['ping'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test' } })
  assert.equal(res.code, 0, res.stderr)
  const port = await freePort()
  res = await h.run(['start', fixture('otel-hop.js'), '--name', 'svc', '--otel'], { env: { PORT: String(port) } })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => (await httpGet(port, '/hop').catch(() => null))?.status === 200, { timeout: 30000, message: 'svc answering' })
  const span = await waitFor(() => receiver.spans().find((s) => s.resource['service.name'] === 'svc'), { timeout: 20000, message: 'svc\'s span at the daemon\'s endpoint' })
  assert.equal(span.resource['deployment.environment.name'], 'test')
  assert.match(receiver.received.find((r) => r.signal === 'traces').contentType, /json/, 'the daemon\'s protocol')
  await waitFor(() => receiver.points().some((p) => p.resource['service.name'] === 'svc'), { timeout: 20000, message: 'svc\'s figures at the daemon\'s endpoint' })
})
