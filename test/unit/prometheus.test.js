'use strict'

// The Prometheus exposition from the daemon's in-memory state (real app model, fake launcher,
// stub samples), its HTTP endpoint with the probes, and the address forms of XPM_METRICS.
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { Supervisor } = require('../../daemon/supervisor')
const { createExposition } = require('../../daemon/prometheus/exposition')
const { openEndpoint } = require('../../daemon/prometheus')
const { parseMetricsAddress, formatAddress } = require('../../daemon/prometheus/address')
const { createProbes } = require('../../daemon/runtime/probes')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { NAMES, stubMetrics, point, samples } = require('../helpers/prometheus')
const { waitFor } = require('../helpers/wait')

test('parseMetricsAddress: a port alone binds 127.0.0.1; host:port, [v6]:port; off forms; bad forms name their source', () => {
  assert.equal(parseMetricsAddress(undefined), null)
  for (const off of ['', '0', 'off', 'OFF', 'false']) assert.equal(parseMetricsAddress(off), null, off)
  assert.deepEqual(parseMetricsAddress(true), { host: '127.0.0.1', port: 9209 })
  assert.deepEqual(parseMetricsAddress('9300'), { host: '127.0.0.1', port: 9300 })
  assert.deepEqual(parseMetricsAddress(':9300'), { host: '127.0.0.1', port: 9300 })
  assert.deepEqual(parseMetricsAddress('127.0.0.1:9209'), { host: '127.0.0.1', port: 9209 })
  assert.deepEqual(parseMetricsAddress('0.0.0.0:9209'), { host: '0.0.0.0', port: 9209 })
  assert.deepEqual(parseMetricsAddress('[::1]:9209'), { host: '::1', port: 9209 })
  assert.deepEqual(parseMetricsAddress('[::]'), { host: '::', port: 9209 })
  assert.deepEqual(parseMetricsAddress('localhost'), { host: 'localhost', port: 9209 })
  assert.equal(formatAddress({ host: '::1', port: 1 }), '[::1]:1')
  assert.throws(() => parseMetricsAddress('127.0.0.1:99999'), { code: 'XPM_ERR_BAD_ARGUMENT', message: /^XPM_METRICS="127\.0\.0\.1:99999": the port/ })
  assert.throws(() => parseMetricsAddress('::1:9209', { from: '--metrics-address' }), { code: 'XPM_ERR_BAD_ARGUMENT', message: /^--metrics-address=.*brackets/ })
  assert.throws(() => parseMetricsAddress('a b:9209'), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

test('probes: ready once started and every app that should run is ready; not while starting nor once shutting down', async (t) => {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  const probes = createProbes({ supervisor })
  assert.deepEqual(probes.ready(), { ok: false, body: 'not ready: the apps are starting\n' })
  await supervisor.start([fakeSpec('api'), fakeSpec('job', { autorestart: false })])
  fake.launched[1].markExited(0, null) // a one-shot job that finished: not waited for
  await waitFor(() => supervisor.apps.get('job').instances[0].status === 'stopped')
  probes.markStarted()
  assert.deepEqual(probes.ready(), { ok: true, body: 'ready\n' })
  fake.launched[0].markExited(1, null) // a crash: waiting restart, not ready
  assert.equal(probes.ready().ok, false)
  assert.match(probes.ready().body, /api\[0\](?: \(pid \d+\))?: (waiting restart|launching)/)
  await waitFor(() => probes.ready().ok)
  supervisor.beginClose()
  assert.deepEqual(probes.ready(), { ok: false, body: 'not ready: shutting down, the apps are draining\n' })
  assert.deepEqual(probes.live(), { ok: true, body: 'ok\n' })
})

test('/readyz names the failing readiness probe and its last result, not "api[0] online"; a failed one-shot job is not ready', async (t) => {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  const probes = createProbes({ supervisor })
  await supervisor.start([fakeSpec('api'), fakeSpec('job', { autorestart: false })])
  probes.markStarted()
  const api = supervisor.apps.get('api').instances[0]
  // the readiness probe as the health checks configure it, failing after the start
  const spec = { ...api.spec, readiness: { kind: 'http', path: '/healthz', port: null } }
  const specOf = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(api), 'spec').get
  t.mock.method(Object.getPrototypeOf(api), 'spec', function () { return this === api ? spec : specOf.call(this) }, { getter: true })
  api.markReadiness(api.handle, false, 'GET /healthz → 503 after 2 ms')
  const body = probes.ready().body
  assert.equal(probes.ready().ok, false)
  assert.match(body, new RegExp(`api\\[0\\] \\(pid ${api.pid}\\): readiness probe GET /healthz failing: GET /healthz → 503 after 2 ms`))
  assert.doesNotMatch(body, /online/)
  api.markReadiness(api.handle, true)
  assert.equal(probes.ready().ok, true)

  fake.launched[1].markExited(3, null) // the job failed: stopped, and not "stopped on purpose"
  await waitFor(() => supervisor.apps.get('job').instances[0].status === 'stopped')
  assert.deepEqual(probes.ready(), { ok: false, body: 'not ready: job[0]: the job exited with code 3\n' })
})

test('two overlapping scrapes are each complete (they used to share one snapshot, and the first to finish emptied it)', async (t) => {
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  const metrics = stubMetrics()
  const exposition = createExposition({ supervisor, metrics, version: '1.0.0' })
  t.after(() => exposition.close())
  await supervisor.start([fakeSpec('api', { instances: 3, execMode: 'cluster' })])
  for (const inst of supervisor.allInstances()) metrics.points.set(inst.id, point)
  for (let round = 0; round < 5; round++) {
    // staggered by a few turns of the loop: each starts while the others are half-way
    const renders = []
    for (let n = 0; n < 3; n++) {
      renders.push(exposition.render())
      for (let turn = 0; turn < round + 1; turn++) await new Promise(setImmediate)
    }
    const texts = await Promise.all(renders)
    for (const text of texts) {
      const rows = samples(text)
      for (const name of NAMES) {
        for (const inst of supervisor.allInstances()) {
          assert.ok(rows.some((r) => r.name === name && r.labels.id === String(inst.id)), `round ${round}: ${name} of id ${inst.id}`)
        }
      }
    }
  }
})

test('the endpoint: /metrics, /livez, /readyz on a free port of 127.0.0.1; 503 before it is attached; 404, 405; a taken port is XPM_ERR_METRICS_LISTEN', async (t) => {
  const endpoint = await openEndpoint({ host: '127.0.0.1', port: 0 })
  t.after(() => endpoint.close())
  const port = endpoint.address.port
  const get = (path, method = 'GET') => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }))
    })
    req.on('error', reject)
    req.end()
  })
  assert.equal((await get('/livez')).status, 200)
  assert.equal((await get('/readyz')).status, 503)
  assert.equal((await get('/metrics')).status, 503)

  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  endpoint.attach({ supervisor, metrics: stubMetrics(), version: '1.2.3' })
  await supervisor.start([fakeSpec('api')])
  assert.equal((await get('/readyz')).status, 503, 'not before the start is done')
  endpoint.markStarted()
  assert.deepEqual(await get('/readyz'), { status: 200, type: 'text/plain; charset=utf-8', body: 'ready\n' })
  const metrics = await get('/metrics?x=1')
  assert.equal(metrics.status, 200)
  assert.match(metrics.type, /^text\/plain; version=0\.0\.4/)
  assert.match(metrics.body, /^xpm_process_up\{app="api",id="0",instance="0"\} 1$/m)
  assert.equal((await get('/nope')).status, 404)
  assert.equal((await get('/metrics', 'POST')).status, 405)
  assert.deepEqual(await get('/livez', 'HEAD'), { status: 200, type: 'text/plain; charset=utf-8', body: '' })

  await assert.rejects(openEndpoint({ host: '127.0.0.1', port }), { code: 'XPM_ERR_METRICS_LISTEN', message: new RegExp(`127\\.0\\.0\\.1:${port}: EADDRINUSE`) })
})

test('`xpm startup` carries the XPM_METRICS it was run with into the systemd unit (the daemon reads it at start)', () => {
  const { renderUnit } = require('../../lib/cli/commands/startup')
  const base = { user: 'u', home: '/home/u', xpmHome: '/home/u/.xpm', node: '/usr/bin/node', entry: '/opt/xpm/daemon/index.js' }
  assert.match(renderUnit({ ...base, metrics: '127.0.0.1:9209' }), /^Environment=XPM_METRICS=127\.0\.0\.1:9209$/m)
  assert.doesNotMatch(renderUnit(base), /XPM_METRICS/)
})
