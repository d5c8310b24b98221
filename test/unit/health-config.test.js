'use strict'

// The forms of readiness, liveness and on_event (lib/shared/config/health-types.js): files, flags and
// the normalized form the daemon checks.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { parseProbe, isProbe, describeProbe, parseHooks, isHooks, PROBE_DEFAULTS } = require('../../lib/shared/config/health-types')
const { tempDir } = require('../helpers/tmp')

test('probes: object and short forms, Kubernetes defaults, timings parsed', () => {
  assert.deepEqual(parseProbe({ http: '/healthz' }), { kind: 'http', path: '/healthz', port: null, ...PROBE_DEFAULTS })
  assert.deepEqual(parseProbe('http:/healthz'), parseProbe({ http: '/healthz' }))
  assert.deepEqual(parseProbe('http:3001/ready?deep=1'), { kind: 'http', path: '/ready?deep=1', port: 3001, ...PROBE_DEFAULTS })
  assert.deepEqual(parseProbe('tcp:3000'), { kind: 'tcp', port: 3000, ...PROBE_DEFAULTS })
  assert.deepEqual(parseProbe({ tcp: '3000' }), parseProbe('tcp:3000'))
  assert.deepEqual(parseProbe('exec: node check.js --quick'), { kind: 'exec', command: 'node check.js --quick', ...PROBE_DEFAULTS })
  const full = parseProbe({ http: '/h', port: 8080, interval: '2s', timeout: 500, failure_threshold: 5, success_threshold: '2', initial_delay: '1m' })
  assert.deepEqual(full, { kind: 'http', path: '/h', port: 8080, interval: 2000, timeout: 500, failureThreshold: 5, successThreshold: 2, initialDelay: 60000 })
  assert.deepEqual(parseProbe('{"exec":"true","interval":"300ms"}'), { kind: 'exec', command: 'true', ...PROBE_DEFAULTS, interval: 300 })
  for (const p of [full, parseProbe('tcp:1'), parseProbe('exec:true')]) assert.ok(isProbe(p), JSON.stringify(p))
  // https servers get their own kind (an http probe never reached them)
  assert.deepEqual(parseProbe('https:/healthz'), { kind: 'https', path: '/healthz', port: null, ...PROBE_DEFAULTS })
  assert.deepEqual(parseProbe('https:8443/healthz'), parseProbe({ https: '/healthz', port: 8443 }))
  assert.ok(isProbe(parseProbe('https:8443/healthz')))
  assert.equal(parseProbe({ https: '/h', http: '/h' }), null)
})

test('probes: anything else is refused', () => {
  const bad = [
    null, 42, '', 'http', 'http:healthz', 'tcp:', 'tcp:70000', 'exec:', 'ftp:/x', '{not json',
    { http: 'healthz' }, { http: '/a b' }, { tcp: 0 }, { tcp: 3000, port: 1 }, { exec: '' }, { exec: 'x', port: 2 },
    { http: '/h', tcp: 1 }, {}, { http: '/h', interval: '10ms' }, { http: '/h', timeout: '1ms' },
    { http: '/h', failure_threshold: 0 }, { http: '/h', success_threshold: 1001 }, { http: '/h', initial_delay: -1 },
    { http: '/h', extra: true }, { http: '/h', port: 'x' }, [{ http: '/h' }]
  ]
  for (const value of bad) assert.equal(parseProbe(value), null, JSON.stringify(value))
  assert.equal(isProbe({ kind: 'http', path: '/h', port: null, interval: 50, timeout: 1000, failureThreshold: 3, successThreshold: 1, initialDelay: 0 }), false)
  assert.equal(isProbe({ kind: 'udp', port: 1, ...PROBE_DEFAULTS }), false)
  assert.equal(isProbe('http:/h'), false)
})

test('probes read the same in every message', () => {
  assert.equal(describeProbe(parseProbe('http:/healthz')), 'GET /healthz')
  assert.equal(describeProbe(parseProbe('http:3000/healthz')), 'GET :3000/healthz')
  assert.equal(describeProbe(parseProbe('https:/healthz')), 'GET https /healthz')
  assert.equal(describeProbe(parseProbe('tcp:3000')), 'tcp :3000')
  assert.equal(describeProbe(parseProbe('exec:node check.js')), 'exec "node check.js"')
  assert.match(describeProbe(parseProbe(`exec:${'x'.repeat(100)}`)), /^exec "x{57}\.\.\."$/)
})

test('on_event: one command for all events, a list, or events to commands, with a timeout', () => {
  const all = ['crash', 'errored', 'restart', 'reload_failed']
  assert.deepEqual(parseHooks('node notify.js'), { timeout: 10000, commands: [{ events: all, command: 'node notify.js' }] })
  assert.deepEqual(parseHooks(['a', 'b']).commands.map((c) => c.command), ['a', 'b'])
  const hooks = parseHooks({ 'crash,errored': './page.sh', restart: ['a', 'b'], timeout: '5s' })
  assert.deepEqual(hooks, {
    timeout: 5000,
    commands: [{ events: ['crash', 'errored'], command: './page.sh' }, { events: ['restart'], command: 'a' }, { events: ['restart'], command: 'b' }]
  })
  assert.ok(isHooks(hooks))
  for (const value of [null, '', [], ['ok', ''], { crash: '' }, { boom: 'x' }, { 'crash,crash': 'x' }, { crash: 'x', timeout: '20m' }, { timeout: '5s' }, 3]) {
    assert.equal(parseHooks(value), null, JSON.stringify(value))
  }
  assert.equal(isHooks({ timeout: 10000, commands: [{ events: ['nope'], command: 'x' }] }), false)
})

test('the options reach the normalized spec, and the daemon accepts it', () => {
  const fs = require('node:fs')
  const path = require('node:path')
  const { normalizeApp, validateSpec } = require('../../lib/shared/config')
  const dir = tempDir('xpm-health-config-')
  try {
    fs.writeFileSync(path.join(dir, 'app.js'), '')
    const spec = normalizeApp({
      script: 'app.js',
      readiness: { http: '/healthz', interval: '1s' },
      liveness: 'exec:true',
      max_event_loop_delay: '1s',
      max_heap: '1.5G',
      on_event: { crash: 'echo crashed' }
    }, { baseDir: dir })
    assert.equal(spec.readiness.kind, 'http')
    assert.equal(spec.liveness.kind, 'exec')
    assert.equal(spec.maxEventLoopDelay, 1000)
    assert.equal(spec.maxHeap, 1.5 * 1024 ** 3)
    assert.deepEqual(spec.onEvent.commands, [{ events: ['crash'], command: 'echo crashed' }])
    assert.equal(validateSpec(spec), spec)
    const plain = normalizeApp({ script: 'app.js' }, { baseDir: dir })
    assert.deepEqual([plain.readiness, plain.liveness, plain.maxEventLoopDelay, plain.maxHeap, plain.onEvent], [null, null, null, null, null])
    assert.throws(() => validateSpec({ ...spec, readiness: { kind: 'http', path: 'x' } }), { code: 'XPM_ERR_CONFIG_INVALID', message: /readiness should be/ })
    assert.throws(() => normalizeApp({ script: 'app.js', liveness: { http: 'healthz' } }, { baseDir: dir }), { code: 'XPM_ERR_CONFIG_INVALID', message: /Expected `liveness` to be a probe/ })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
