'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const net = require('node:net')
const { withReusePort, nodeHasReusePort } = require('../../lib/agent/reuse-port')
const { checkReusePort } = require('../../daemon/check-specs')
const { checkSpec } = require('../../lib/shared/config/validate-spec')

const rewrite = (...args) => withReusePort(args, net._normalizeArgs)
const cb = () => {}

test('nodeHasReusePort: 22.12+, 23.1+, 24 and later; not 20, 22.11 or 23.0', () => {
  for (const v of ['22.12.0', '22.23.3', '23.1.0', '24.0.0', '25.2.1']) assert.equal(nodeHasReusePort(v), true, v)
  for (const v of ['20.20.2', '21.7.3', '22.11.0', '23.0.0']) assert.equal(nodeHasReusePort(v), false, v)
})

test('withReusePort: TCP listens on a port get reusePort, with their host, backlog and callback', () => {
  assert.deepEqual(rewrite(3000), [{ port: 3000, reusePort: true }])
  assert.deepEqual(rewrite('3000', cb), [{ port: '3000', reusePort: true }, cb])
  assert.deepEqual(rewrite(3000, '127.0.0.1', 64, cb), [{ port: 3000, host: '127.0.0.1', backlog: 64, reusePort: true }, cb])
  assert.deepEqual(rewrite(3000, 128), [{ port: 3000, backlog: 128, reusePort: true }])
  assert.deepEqual(rewrite({ port: 3000, host: '::', backlog: 7 }), [{ port: 3000, host: '::', backlog: 7, reusePort: true }])
})

test('withReusePort leaves alone: port 0 (cluster shares one port), Unix sockets, fds, handles, and listens that chose already', () => {
  assert.equal(rewrite(0), null)
  assert.equal(rewrite(), null)
  assert.equal(rewrite(cb), null)
  assert.equal(rewrite('/tmp/app.sock'), null)
  assert.equal(rewrite({ path: '/tmp/app.sock' }), null)
  assert.equal(rewrite({ fd: 3 }), null)
  assert.equal(rewrite({ handle: {} }), null)
  assert.equal(rewrite({ port: 3000, exclusive: false }), null)
  assert.equal(rewrite({ port: 3000, reusePort: false }), null)
  assert.equal(rewrite({ port: 3000, reusePort: false, exclusive: true }), null)
})

test('withReusePort: a listen with exclusive: true gets reusePort too (each instance its own socket, none EADDRINUSE); reusePort: true is taken as is', () => {
  assert.deepEqual(rewrite({ port: 3000, exclusive: true }), [{ port: 3000, exclusive: true, reusePort: true }])
  assert.deepEqual(rewrite({ port: 3000, reusePort: true }), [{ port: 3000, reusePort: true }])
  assert.deepEqual(rewrite({ port: 3000, reusePort: true, exclusive: false }), [{ port: 3000, reusePort: true, exclusive: false }])
})

test('checkReusePort refuses, with XPM_ERR_REUSE_PORT_UNSUPPORTED, a daemon Node without reusePort or a system other than Linux', () => {
  const spec = { name: 'api', reusePort: true }
  assert.throws(() => checkReusePort(spec, { platform: 'linux', version: '20.20.2' }), { code: 'XPM_ERR_REUSE_PORT_UNSUPPORTED', message: /Node 20\.20\.2; it needs Node 22\.12 or later/ })
  assert.throws(() => checkReusePort(spec, { platform: 'darwin', version: '24.0.0' }), { code: 'XPM_ERR_REUSE_PORT_UNSUPPORTED', message: /darwin; it is supported on Linux only/ })
  assert.doesNotThrow(() => checkReusePort(spec, { platform: 'linux', version: '22.12.0' }))
  assert.doesNotThrow(() => checkReusePort({ name: 'api', reusePort: false }, { platform: 'darwin', version: '20.0.0' }))
})

test('the daemon\'s spec check refuses reusePort outside cluster mode, and without the agent', () => {
  const base = { name: 'x', script: '/x.js', cwd: '/', interpreter: 'node', logs: { rotate: {} } }
  assert.ok(checkSpec({ ...base, execMode: 'fork', reusePort: true }).some((p) => /applies to cluster mode only/.test(p)))
  assert.ok(!checkSpec({ ...base, execMode: 'cluster', reusePort: true }).some((p) => /reusePort/.test(p)))
  assert.ok(checkSpec({ ...base, execMode: 'cluster', reusePort: true, env: { XPM_AGENT: '0' } }).some((p) => /needs xpm's agent.*XPM_AGENT=0/.test(p)), 'no silent round-robin without the agent')
})

// fast-check seed 619680234 of fuzz-config: the file's normalizer accepted what the daemon refuses
test('an ecosystem app with reuse_port that runs in fork mode is refused by the normalizer, as by the daemon', () => {
  const { normalizeApp } = require('../../lib/shared/config')
  const baseDir = require('node:path').join(__dirname, '..', 'fixtures', 'ecosystems')
  const env = { XPM_HOME: '/nonexistent-xpm-home' }
  assert.throws(() => normalizeApp({ script: 'app.js', reuse_port: true, env: {} }, { baseDir, env, cpus: 1 }), (err) => err.code === 'XPM_ERR_CONFIG_INVALID' && /cluster mode only/.test(err.message))
  const spec = normalizeApp({ script: 'app.js', reuse_port: true, exec_mode: 'cluster' }, { baseDir, env, cpus: 1 })
  assert.deepEqual(checkSpec(spec), [])
})
