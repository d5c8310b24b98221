'use strict'

// PM2's environment variables: each is honoured or noted, and the migration guide says which.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { PM2_ENV, pm2EnvDefaults, pm2EnvNotices } = require('../../lib/shared/config/pm2-env')
const { normalizeApp } = require('../../lib/shared/config')
const { homePaths } = require('../../lib/shared/paths')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ecosystems')

test('PM2_KILL_TIMEOUT, PM2_KILL_SIGNAL, PM2_GRACEFUL_LISTEN_TIMEOUT & co. are the defaults of apps that set none', () => {
  const env = { PATH: process.env.PATH, PM2_KILL_TIMEOUT: '3000', PM2_KILL_SIGNAL: 'SIGTERM', PM2_GRACEFUL_LISTEN_TIMEOUT: '4000', PM2_PROCESS_INSTANCE_VAR: 'INSTANCE_ID', PM2_NODE_OPTIONS: '--max-old-space-size=128', PM2_KILL_USE_MESSAGE: 'true' }
  const spec = normalizeApp({ script: 'app.js' }, { baseDir: FIXTURES, env })
  assert.deepEqual([spec.killTimeout, spec.killSignal, spec.listenTimeout, spec.instanceVar, spec.nodeArgs, spec.shutdownWithMessage],
    [3000, 'SIGTERM', 4000, 'INSTANCE_ID', ['--max-old-space-size=128'], true])
  const own = normalizeApp({ script: 'app.js', kill_timeout: 1000 }, { baseDir: FIXTURES, env })
  assert.equal(own.killTimeout, 1000, 'the app\'s own value wins')
  assert.equal(normalizeApp({ script: 'app.js' }, { baseDir: FIXTURES, env: { PATH: process.env.PATH } }).killTimeout, 5000)
  assert.throws(() => pm2EnvDefaults({ PM2_KILL_TIMEOUT: 'soon' }), { code: 'XPM_ERR_CONFIG_INVALID', message: /PM2_KILL_TIMEOUT/ })
})

test('PM2_PID_FILE_PATH and PM2_LOG_FILE_PATH move the daemon\'s pid file and log', () => {
  const p = homePaths('/tmp/h', { PM2_PID_FILE_PATH: '/tmp/.toto.pid', PM2_LOG_FILE_PATH: '/tmp/d.log' })
  assert.deepEqual([p.pidFile, p.daemonLog, p.socket], ['/tmp/.toto.pid', '/tmp/d.log', '/tmp/h/daemon.sock'])
  assert.equal(homePaths('/tmp/h', {}).pidFile, '/tmp/h/daemon.pid')
})

test('PM2_DEEP_MONITORING and the other variables xpm does not read get one notice each', () => {
  const lines = pm2EnvNotices({ PM2_DEEP_MONITORING: 'true', PM2_KILL_TIMEOUT: '1' })
  assert.equal(lines.length, 1)
  assert.match(lines[0], /^PM2_DEEP_MONITORING: /)
})

test('every PM2 variable of lib/shared/config/pm2-env.js is in the migration guide\'s table', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migrating-from-pm2.md'), 'utf8')
  const section = doc.slice(doc.indexOf('### Environment variables'))
  for (const e of PM2_ENV) assert.ok(section.includes(`\`${e.name}\``), `${e.name} is missing from docs/migrating-from-pm2.md`)
})
