'use strict'

// Probes: the threshold counting, the readiness gate, where each kind runs, the daemon's side of
// the in-worker probe and the agent's side (lib/agent/probe.js) against a real http.Server.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const net = require('node:net')
const { EventEmitter } = require('node:events')
const { countResult, PASSING, NOT_YET } = require('../../daemon/model/probe-counter')
const { passReadiness } = require('../../daemon/model/readiness-gate')
const { createProber } = require('../../daemon/health/probes')
const { askAgent } = require('../../daemon/health/agent-probe')
const { parseProbe } = require('../../lib/shared/config/health-types')
const workerProbe = require('../../lib/agent/probe')

const probe = (text, extra = {}) => ({ ...parseProbe(text), ...extra })

test('thresholds: failure_threshold failures in a row flip to failing, success_threshold passes back', () => {
  const p = { failureThreshold: 3, successThreshold: 2 }
  let s = PASSING
  const seen = []
  for (const ok of [false, false, true, false, false, false, true, true, false, true, true]) {
    s = countResult(s, ok, p)
    seen.push(`${s.passing ? 'P' : 'F'}${s.changed ? '!' : ''}`)
  }
  assert.deepEqual(seen, ['P', 'P', 'P', 'P', 'P', 'F!', 'F', 'P!', 'P', 'P', 'P'])
  assert.equal(countResult(NOT_YET, true, { failureThreshold: 3, successThreshold: 1 }).passing, true)
})

test('the readiness gate: initial_delay, then retries until success_threshold passes in a row', async () => {
  const slept = []
  const sleep = async (ms) => { slept.push(ms) }
  const results = [false, true, false, true, true, true]
  const seen = []
  const r = await passReadiness(probe('http:/h', { interval: 5000, initialDelay: 700, successThreshold: 2 }), async () => {
    const ok = results.shift()
    return { ok, detail: ok ? '→ 200' : 'GET /h → 503' }
  }, { sleep, onResult: (x) => seen.push(x.ok) })
  assert.deepEqual(seen, [false, true, false, true, true])
  assert.equal(r.detail, '→ 200')
  assert.deepEqual(slept, [700, 1000, 1000, 1000, 1000], 'retries every min(interval, 1 s)')

  const ctrl = new AbortController()
  const never = passReadiness(probe('http:/h', { interval: 200 }), async () => { ctrl.abort(new Error('deadline')); return { ok: false, detail: 'x' } }, { signal: ctrl.signal, sleep: async () => {} })
  await assert.rejects(never, /deadline/)
})

test('where each kind runs: http and cluster tcp through the agent, fork tcp by connect, exec as a command', async () => {
  const calls = []
  const prober = createProber({
    ask: async (handle, req) => { calls.push(['agent', handle.pid, req]); return req.path === '/bad' ? { ok: false, status: 503, detail: '503' } : { ok: true, status: 200, detail: '200' } },
    connect: async (req) => { calls.push(['connect', req.port]); return { ok: false, detail: 'connection refused' } },
    get: async (req) => { calls.push(['get', req.port, req.path]); return { ok: true, status: 204, detail: '204' } },
    run: async (req) => { calls.push(['run', req.command, req.env.XPM_PROBE_PID, req.env.XPM_PROBE, req.env.KEEP]); return { ok: false, code: 2, stdout: '', stderr: '\n  db is down\nmore\n' } },
    now: () => 0
  })
  const spec = { cwd: '/tmp', env: { KEEP: 'yes' } }
  const cluster = { handle: { pid: 11, reportsBoot: true, announcesListening: true }, spec, id: 0, index: 0, name: 'a' }
  const fork = { handle: { pid: 12, reportsBoot: true, announcesListening: false }, spec, id: 1, index: 0, name: 'b' }
  const bare = { handle: { pid: 13, reportsBoot: false, announcesListening: false }, spec, id: 2, index: 0, name: 'c' }

  assert.deepEqual(pick(await prober.probe(probe('http:/bad'), cluster)), { ok: false, detail: 'GET /bad → 503' })
  assert.deepEqual(pick(await prober.probe(probe('http:/ok'), fork)), { ok: true, detail: '→ 200' })
  assert.deepEqual(pick(await prober.probe(probe('http:8080/ok'), bare)), { ok: true, detail: '→ 204' })
  assert.deepEqual(pick(await prober.probe(probe('http:/ok'), bare)), { ok: false, detail: 'GET /ok: a process without the agent needs the probe\'s port' })
  await prober.probe(probe('tcp:3000'), cluster)
  assert.deepEqual(pick(await prober.probe(probe('tcp:3000'), fork)), { ok: false, detail: 'tcp :3000: connection refused' })
  assert.deepEqual(pick(await prober.probe(probe('exec:./check.sh'), fork, { role: 'liveness' })), { ok: false, detail: 'exec "./check.sh": exit code 2: db is down' })
  assert.deepEqual(calls, [
    ['agent', 11, { kind: 'http', path: '/bad', port: null, timeout: 1000 }],
    ['agent', 12, { kind: 'http', path: '/ok', port: null, timeout: 1000 }],
    ['get', 8080, '/ok'],
    ['agent', 11, { kind: 'tcp', port: 3000, timeout: 1000 }],
    ['connect', 3000],
    ['run', './check.sh', '12', 'liveness', 'yes']
  ])
})

function pick ({ ok, detail }) {
  return { ok, detail }
}

test('exec probes run for real: exit 0 passes, a timeout kills the command', async () => {
  const prober = createProber()
  const target = { handle: { pid: 1 }, spec: { cwd: process.cwd(), env: { PATH: process.env.PATH } }, id: 0, index: 0, name: 'x' }
  assert.equal((await prober.probe(probe('exec:test "$XPM_PROBE_PID" = 1'), target)).ok, true)
  const slow = await prober.probe(probe('exec:sleep 5', { timeout: 200 }), target)
  assert.deepEqual([slow.ok, slow.detail], [false, 'exec "sleep 5": no result within 200 ms'])
  assert.ok(slow.ms < 4000)
})

// A handle whose "agent" is a function of the request.
function fakeHandle (answer) {
  const h = new EventEmitter()
  Object.assign(h, { pid: 9, exited: false, hasIpc: true, sent: [] })
  h.send = (msg) => {
    h.sent.push(msg)
    setImmediate(() => answer(msg, h))
    return true
  }
  return h
}

test('the daemon side: an answer by id, its own deadline, an exit, a closed channel', async (t) => {
  const keepAlive = setInterval(() => {}, 1000) // the probe's own timer is unref'd, as in the daemon
  t.after(() => clearInterval(keepAlive))
  const h = fakeHandle((msg, handle) => {
    if (msg.path === '/slow') return
    if (msg.path === '/exit') return handle.emit('exit', { code: 1 })
    handle.emit('message', { 'xpm:agent': 'probe', id: msg.id, ok: msg.path === '/ok', status: msg.path === '/ok' ? 200 : 500, detail: 'x' })
  })
  assert.deepEqual(await askAgent(h, { kind: 'http', path: '/ok', timeout: 1000 }), { ok: true, status: 200, detail: 'x' })
  assert.equal(h.sent[0].cmd, 'NODE_XPM_PROBE', 'an internal message: invisible to the app')
  assert.deepEqual(await askAgent(h, { kind: 'http', path: '/boom', timeout: 1000 }), { ok: false, status: 500, detail: 'x' })
  assert.deepEqual(await askAgent(h, { kind: 'http', path: '/slow', timeout: 50 }), { ok: false, status: 0, detail: 'no answer within 50 ms' })
  assert.deepEqual(await askAgent(h, { kind: 'http', path: '/exit', timeout: 1000 }), { ok: false, status: 0, detail: 'the process exited' })
  const closed = fakeHandle(() => {})
  closed.hasIpc = false
  assert.deepEqual(await askAgent(closed, { kind: 'tcp', port: 1, timeout: 1000 }), { ok: false, status: 0, detail: 'its IPC channel is closed' })
})

test('the agent side: a GET goes into this process\'s own server, by port; tcp says what listens here', async (t) => {
  workerProbe.trackServers()
  const hits = []
  const a = http.createServer((req, res) => {
    hits.push([req.url, req.headers['user-agent'], req.socket.remoteAddress])
    res.statusCode = req.url === '/healthz' ? 200 : req.url === '/moved' ? 302 : 503
    res.end()
  })
  const b = http.createServer((req, res) => res.end('b'))
  const raw = net.createServer((s) => s.end())
  await Promise.all([a, b, raw].map((s) => new Promise((resolve) => s.listen(0, '127.0.0.1', resolve))))
  t.after(() => { for (const s of [a, b, raw]) s.close() })
  const port = a.address().port

  assert.deepEqual(await workerProbe.httpProbe({ path: '/healthz', port, timeout: 1000 }), { ok: true, status: 200, detail: '200' })
  assert.deepEqual(await workerProbe.httpProbe({ path: '/moved', port, timeout: 1000 }), { ok: true, status: 302, detail: '302' })
  assert.deepEqual(await workerProbe.httpProbe({ path: '/down', port, timeout: 1000 }), { ok: false, status: 503, detail: '503' })
  assert.deepEqual(hits, [['/healthz', 'xpm-probe', '127.0.0.1'], ['/moved', 'xpm-probe', '127.0.0.1'], ['/down', 'xpm-probe', '127.0.0.1']])
  assert.equal((await workerProbe.httpProbe({ path: '/', port: raw.address().port, timeout: 1000 })).detail, `no HTTP server listening on port ${raw.address().port} in this process`)
  const stuck = http.createServer(() => {}) // never answers
  await new Promise((resolve) => stuck.listen(0, resolve))
  t.after(() => stuck.close())
  assert.deepEqual(await workerProbe.httpProbe({ path: '/', port: stuck.address().port, timeout: 100 }), { ok: false, status: 0, detail: 'no answer within 100 ms' })

  assert.equal((await workerProbe.tcpProbe({ port: raw.address().port })).ok, true)
  assert.equal((await workerProbe.tcpProbe({ port: 1 })).ok, false)
  const closedPort = b.address().port
  await new Promise((resolve) => b.close(resolve))
  assert.equal((await workerProbe.tcpProbe({ port: closedPort })).ok, false, 'a closed server no longer counts')
  assert.equal(workerProbe.onProbeMessage({ cmd: 'NODE_XPM_METRICS' }), false)
})

test('exec probes are bounded per app: one app\'s slow commands never hold another\'s, waiting counts against the timeout, an exit ends them', async (t) => {
  const keepAlive = setInterval(() => {}, 1000) // the probes' timers are unref'd, as in the daemon
  t.after(() => clearInterval(keepAlive))
  const started = []
  const prober = createProber({
    // 'slow' commands run until they are ended; 'fast' ones pass at once
    run: (req) => new Promise((resolve) => {
      started.push(req.env.XPM_APP_NAME)
      if (req.env.XPM_APP_NAME === 'fast') return resolve({ ok: true, code: 0 })
      req.signal.addEventListener('abort', () => resolve({ ok: false, aborted: true, stdout: '', stderr: '' }))
    })
  })
  const handle = new EventEmitter()
  Object.assign(handle, { pid: 21, exited: false })
  const slow = { handle, spec: { name: 'slow', instances: 1, cwd: '/tmp', env: {} }, id: 0, index: 0, name: 'slow' }
  const fast = { handle: { pid: 22 }, spec: { name: 'fast', instances: 1, cwd: '/tmp', env: {} }, id: 1, index: 0, name: 'fast' }
  const hung = [1, 2, 3].map(() => prober.probe(probe('exec:./hang.sh', { timeout: 60000 }), slow))
  const waiting = prober.probe(probe('exec:./hang.sh', { timeout: 100 }), slow)
  // before: a 4-slot pool over every app, and a probe waiting for a slot never timed out
  assert.deepEqual(pick(await prober.probe(probe('exec:./ok.sh', { timeout: 100 }), fast)), { ok: true, detail: 'exit code 0' })
  assert.deepEqual(pick(await waiting), { ok: false, detail: 'exec "./hang.sh": no slot within 100 ms (2 commands of this app already run)' })
  assert.deepEqual(started, ['slow', 'slow', 'fast'], 'two slots for a one-instance app; the third waits')
  handle.exited = true
  handle.emit('exit', { code: 0 })
  const ended = await Promise.all(hung)
  assert.deepEqual(ended.map((r) => r.ok), [false, false, false])
  assert.match(ended[0].detail, /ended/)
  assert.deepEqual(started, ['slow', 'slow', 'fast'], 'the probe still waiting when the process exited never ran')
  assert.equal(prober.execLimiters.size, 0, 'the app\'s slots are given back')
})

test('a caller\'s signal ends a running exec probe and its process group', async (t) => {
  const keepAlive = setInterval(() => {}, 1000)
  t.after(() => clearInterval(keepAlive))
  const prober = createProber()
  const target = { handle: { pid: 1 }, spec: { name: 'x', cwd: process.cwd(), env: { PATH: process.env.PATH } }, id: 0, index: 0, name: 'x' }
  const ctrl = new AbortController()
  const running = prober.probe(probe('exec:sleep 30 & echo $! > /dev/null; sleep 30', { timeout: 60000 }), target, { signal: ctrl.signal })
  setImmediate(() => ctrl.abort(new Error('deleted')))
  const r = await running
  assert.equal(r.ok, false)
  assert.match(r.detail, /ended/)
})

test('https probes: into this process\'s own https.Server (the agent), or a real TLS GET without the agent; an http probe says an HTTPS server listens', async (t) => {
  const fs = require('node:fs')
  const https = require('node:https')
  const path = require('node:path')
  const tls = path.join(__dirname, '..', 'fixtures', 'tls')
  workerProbe.trackServers()
  const hits = []
  const server = https.createServer({ key: fs.readFileSync(path.join(tls, 'localhost-key.pem')), cert: fs.readFileSync(path.join(tls, 'localhost-cert.pem')) }, (req, res) => {
    hits.push([req.url, req.socket.encrypted])
    res.statusCode = req.url === '/healthz' ? 200 : 503
    res.end()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => server.close())
  const port = server.address().port

  // before: "no HTTP server listening in this process", whatever the probe
  assert.deepEqual(await workerProbe.httpProbe({ path: '/healthz', port, timeout: 1000, secure: true }), { ok: true, status: 200, detail: '200' })
  assert.deepEqual(await workerProbe.httpProbe({ path: '/down', port, timeout: 1000, secure: true }), { ok: false, status: 503, detail: '503' })
  assert.deepEqual(hits, [['/healthz', true], ['/down', true]])
  assert.equal((await workerProbe.httpProbe({ path: '/healthz', port, timeout: 1000 })).detail, `no HTTP server listening on port ${port} in this process (an HTTPS server listens: use an https probe)`)

  // through the daemon's prober: the agent is asked for kind https; without the agent, real TLS
  const asked = []
  const prober = createProber({ ask: async (handle, req) => { asked.push(req.kind); return workerProbe.httpProbe({ ...req, secure: req.kind === 'https' }) }, now: () => 0 })
  const spec = { name: 's', cwd: '/tmp', env: {} }
  assert.deepEqual(pick(await prober.probe(probe('https:/healthz'), { handle: { pid: 1, reportsBoot: true }, spec, id: 0, index: 0, name: 's' })), { ok: true, detail: '→ 200' })
  assert.deepEqual(asked, ['https'])
  const bare = { handle: { pid: 1, reportsBoot: false }, spec, id: 0, index: 0, name: 's' }
  assert.deepEqual(pick(await prober.probe(probe(`https:${port}/healthz`), bare)), { ok: true, detail: '→ 200' })
  assert.deepEqual(pick(await prober.probe(probe(`https:${port}/down`), bare)), { ok: false, detail: `GET https :${port}/down → 503` })
})
