'use strict'

// `xpm import`: PM2's dump (the fixture is written in PM2's format, one entry per process) → the
// apps of an ecosystem file, and what is not carried over. The real import (daemon, processes)
// is test/integration/import.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { fromDump, readDump, pm2Home } = require('../../lib/cli/import/pm2-dump')
const { ecosystemText } = require('../../lib/cli/import/write-ecosystem')
const { loadEcosystem } = require('../../lib/shared/config/load-ecosystem')
const { tempDir } = require('../helpers/tmp')

const CORPUS = path.join(__dirname, '..', 'fixtures', 'ecosystems', 'pm2-corpus')

// The fixture dump with its placeholders filled in.
function dumpFixture ({ home, port = 4567, logs = '/var/log/api' } = {}) {
  const text = fs.readFileSync(path.join(CORPUS, 'dump.pm2.tpl'), 'utf8')
    .replaceAll('__CORPUS__', CORPUS).replaceAll('__PM2_HOME__', home).replaceAll('__PORT__', String(port))
    .replaceAll('__LOGS__', logs).replaceAll('__PATH__', '/usr/bin:/bin')
  return JSON.parse(text)
}

test('PM2\'s home: $PM2_HOME, else ~/.pm2', () => {
  assert.equal(pm2Home({ PM2_HOME: '/srv/pm2' }), '/srv/pm2')
  assert.equal(pm2Home({ HOME: '/home/u' }), '/home/u/.pm2')
})

test('a dump becomes apps with the same names, instances, environment, log paths and states', () => {
  const home = '/home/deploy/.pm2'
  const { apps, notes, processes } = fromDump(dumpFixture({ home }), { homes: [home], env: { PATH: '/usr/bin:/bin', NODE_ENV: 'development' } })
  assert.equal(processes, 4, 'the module is not counted')
  assert.deepEqual(apps.map((a) => a.name), ['api', 'worker', 'gone'])
  const [api, worker] = apps
  assert.deepEqual(api, {
    name: 'api',
    script: path.join(CORPUS, 'app.js'),
    args: ['--color'],
    cwd: CORPUS,
    exec_mode: 'cluster',
    instances: 2,
    env: { PORT: '4567', NODE_ENV: 'production' },
    kill_timeout: '3s',
    max_memory_restart: '256M',
    out_file: '/var/log/api/api-out.log',
    merge_logs: true
  })
  assert.deepEqual(worker, {
    name: 'worker',
    namespace: 'jobs',
    script: path.join(CORPUS, 'app.js'),
    cwd: CORPUS,
    node_args: ['--max-old-space-size=96'],
    env: { QUEUE: 'emails' },
    autorestart: false,
    cron_restart: '0 3 * * *',
    autostart: false
  })
  const said = notes.map((n) => `${n.app}: ${n.what}`).join('\n')
  assert.match(said, /pm2-logrotate: a PM2 module, not carried over/)
  assert.match(said, /api: logs: PM2's own files \(api-error\.log\) stay PM2's/)
  assert.match(said, /worker: stopped in PM2: registered stopped \(autostart: false\)/)
  assert.ok(!/PATH|PM2_HOME|pm_id|unique_id/.test(JSON.stringify(apps.map((a) => a.env))), 'PM2\'s own variables and the shell\'s are left out')
})

test('per-instance log files, custom pid files, "max" instances and other interpreters are carried over', () => {
  const home = '/root/.pm2'
  const entry = (over) => ({ name: 'w', exec_mode: 'cluster_mode', pm_exec_path: '/srv/w.js', pm_cwd: '/srv', status: 'online', env: {}, ...over })
  const { apps } = fromDump([
    entry({ pm_id: 0, instances: 'max', merge_logs: false, pm_out_log_path: '/var/log/w-out-0.log', pm_pid_path: '/run/w-0.pid' }),
    entry({ pm_id: 1, instances: 'max', merge_logs: false, pm_out_log_path: '/var/log/w-out-1.log', pm_pid_path: '/run/w-1.pid' }),
    entry({ name: 'v', pm_id: 2, instances: 2, merge_logs: false, pm_out_log_path: '/var/log/v-2024.txt' }),
    entry({ name: 'v', pm_id: 3, instances: 2, merge_logs: false, pm_out_log_path: '/var/log/v-2024.txt' }),
    { name: 'py', exec_mode: 'fork_mode', exec_interpreter: 'python3', pm_exec_path: '/srv/job.py', status: 'errored', env: {} }
  ], { homes: [home], env: {} })
  assert.deepEqual([apps[0].instances, apps[0].out_file, apps[0].merge_logs, apps[0].pid_file], ['max', '/var/log/w-out.log', undefined, '/run/w.pid'], 'one file per instance is the default: no merge_logs needed')
  assert.equal(apps[1].out_file, '/var/log/v-2024.txt', 'PM2 split only a name ending in .log: this one was shared')
  assert.deepEqual([apps[2].interpreter, apps[2].autostart], ['python3', false])
})

test('the written file is a valid ecosystem file that gives the same apps', async () => {
  const home = tempDir('xpm-import-unit-')
  const { apps } = fromDump(dumpFixture({ home, logs: home }), { homes: [home], env: {} })
  const file = path.join(home, 'ecosystem.config.js')
  fs.writeFileSync(file, ecosystemText(apps, { header: ['imported'] }))
  assert.match(fs.readFileSync(file, 'utf8'), /^'use strict'\n\n\/\/ imported\nmodule\.exports = \{\n {2}apps: \[/)
  assert.deepEqual((await loadEcosystem(file)).apps, apps)
})

test('a missing, broken or foreign dump is XPM_ERR_IMPORT_SOURCE, with how to make one', () => {
  const dir = tempDir('xpm-import-bad-')
  assert.throws(() => readDump(path.join(dir, 'dump.pm2')), { code: 'XPM_ERR_IMPORT_SOURCE', message: /ENOENT \(run `pm2 save` first/ })
  fs.writeFileSync(path.join(dir, 'broken'), '[{')
  assert.throws(() => readDump(path.join(dir, 'broken')), { code: 'XPM_ERR_IMPORT_SOURCE', message: /is not JSON/ })
  fs.writeFileSync(path.join(dir, 'object'), '{"apps": []}')
  assert.throws(() => readDump(path.join(dir, 'object')), { code: 'XPM_ERR_IMPORT_SOURCE', message: /not a list of processes/ })
})
