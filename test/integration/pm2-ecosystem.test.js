'use strict'

// PM2 ecosystem files started for real: one file with the keys that have behaviour in the
// daemon (instance_var, increment_var, namespace targets, autostart, a node-shebang command on
// PATH in cluster mode, a command line, pid_file, disable_logs, source_map_support), a file with
// real typos, and uid when the tests run as root. Every other file of the corpus goes through the
// config model only (test/unit/config-pm2-corpus.test.js).

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createHome, httpGet, waitFor, freePort, fixture } = require('../helpers/xpm')

const CORPUS = fixture(path.join('ecosystems', 'pm2-corpus'))
const APP = path.join(CORPUS, 'app.js')

// A base port with the two above it free too (increment_var gives base, base+1, base+2).
async function freePortRun (count) {
  for (let tries = 0; tries < 50; tries++) {
    const base = await freePort()
    if (base + count > 65535) continue
    const free = await Promise.all(Array.from({ length: count - 1 }, (_, i) => isFree(base + i + 1)))
    if (free.every(Boolean)) return base
  }
  throw new Error(`no run of ${count} free ports`)
}

function isFree (port) {
  return new Promise((resolve) => {
    const srv = net.createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)))
  })
}

const cmdline = (pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)

test('a PM2 ecosystem file: per-instance variables, namespaces, autostart, PATH scripts in cluster mode, command lines, pid files', async (t) => {
  const h = createHome(t, { inProcess: true })
  const base = await freePortRun(3)
  const nextPort = await freePort()
  const dir = fs.mkdtempSync(path.join(h.home, 'eco-'))
  const pidFile = path.join(dir, 'quiet.pid')
  const writtenPid = path.join(dir, 'quiet-0.pid') // as PM2: -<n> before the extension, one instance too
  const file = path.join(dir, 'ecosystem.config.js')
  const childFile = path.join(dir, 'shallow.child')
  const config = {
    apps: [
      { name: 'inc', script: APP, exec_mode: 'cluster', instances: 3, instance_var: 'INSTANCE_ID', increment_var: 'PORT', env: { PORT: base } },
      { name: 'billing-a', script: APP, namespace: 'billing' },
      { name: 'billing-b', script: APP, namespace: 'billing' },
      { name: 'lazy', script: APP, autostart: false },
      { name: 'nextlike', script: 'fake-next', args: 'start', exec_mode: 'cluster', instances: 2, env: { PORT: nextPort } },
      { name: 'cmdline', script: 'sleep 120' },
      { name: 'quiet', script: APP, pid_file: pidFile, disable_logs: true, source_map_support: true, vizion: true },
      // treekill: false, a stop ends the shell only: its background child lives on
      { name: 'shallow', script: `sh -c "sleep 300 & echo \\$! > ${childFile}; wait"`, treekill: false, kill_signal: 'SIGTERM' }
    ],
    deploy: { production: { user: 'deploy', host: 'example.com', ref: 'origin/main', repo: 'git@example.com:x.git', path: '/srv/x' } }
  }
  fs.writeFileSync(file, `module.exports = ${JSON.stringify(config, null, 2)}\n`)
  const env = { PATH: `${path.join(CORPUS, 'bin')}${path.delimiter}${process.env.PATH}` }
  const res = await h.run(['start', file], { env })
  assert.equal(res.code, 0, res.stderr)
  assert.doesNotMatch(res.stderr, /notice: `deploy`/, 'the deploy section is `xpm deploy`\'s')
  assert.match(res.stderr, /\[xpm\] notice: `vizion` in app "quiet"/)
  assert.match(res.stdout, /lazy: registered, not started \(autostart: false\)/)

  const list = await h.jlist()
  const of = (name) => list.filter((p) => p.name === name)
  assert.deepEqual(of('inc').map((p) => [p.mode, p.status]), [['cluster', 'online'], ['cluster', 'online'], ['cluster', 'online']])
  for (const i of [0, 1, 2]) {
    const { env: seen } = (await httpGet(base + i)).json
    assert.equal(seen.INSTANCE_ID, String(i), 'instance_var renames NODE_APP_INSTANCE')
    assert.equal(seen.NODE_APP_INSTANCE, undefined)
    assert.equal(seen.PORT, String(base + i), 'increment_var: base, base+1, base+2')
  }

  assert.deepEqual(of('nextlike').map((p) => [p.mode, p.status]), [['cluster', 'online'], ['cluster', 'online']], 'a node-shebang command found on PATH runs under Node, clustered')
  const next = (await httpGet(nextPort)).json
  assert.deepEqual([next.worker, next.argv], [true, ['start']])

  const [sleeper] = of('cmdline')
  assert.equal(sleeper.status, 'online')
  assert.deepEqual(cmdline(sleeper.pid).slice(-2).map((a) => path.basename(a)), ['sleep', '120'])

  const [quiet] = of('quiet')
  await waitFor(() => fs.existsSync(writtenPid) && fs.readFileSync(writtenPid, 'utf8') === `${quiet.pid}\n`, { timeout: 5000, message: 'the pid file' })
  assert.ok(cmdline(quiet.pid).includes('--enable-source-maps'))
  assert.ok(!fs.readdirSync(path.join(h.home, 'logs')).some((f) => f.startsWith('quiet')), 'disable_logs: no log file')

  assert.deepEqual(of('lazy').map((p) => p.status), ['stopped'])
  const table = await h.run(['list'])
  assert.match(table.stdout, /namespace/)
  assert.match(table.stdout, /billing/)

  // a namespace is a target
  const stop = await h.run(['stop', 'billing'])
  assert.equal(stop.code, 0, stop.stderr)
  const after = await h.jlist()
  assert.deepEqual(after.filter((p) => p.namespace === 'billing').map((p) => p.status), ['stopped', 'stopped'])
  assert.ok(after.filter((p) => p.name === 'inc').every((p) => p.status === 'online'))

  // autostart: false starts when named; the pid file goes with its process
  assert.equal((await h.run(['start', 'lazy'])).code, 0)
  assert.deepEqual((await h.jlist()).filter((p) => p.name === 'lazy').map((p) => p.status), ['online'])
  assert.equal((await h.run(['stop', 'quiet'])).code, 0)
  await waitFor(() => !fs.existsSync(writtenPid), { timeout: 5000, message: 'the pid file removed' })

  const child = await waitFor(() => Number(fs.readFileSync(childFile, 'utf8')), { timeout: 5000, message: 'the shell\'s child' })
  h.track(child) // cleanup kills it by pid
  assert.equal((await h.run(['stop', 'shallow'])).code, 0)
  assert.deepEqual((await h.jlist()).filter((p) => p.name === 'shallow').map((p) => p.status), ['stopped'])
  assert.ok(fs.existsSync(`/proc/${child}`), 'treekill: false leaves what the app started')
})

test('a file with real typos: every problem listed, exit 2, nothing started', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', path.join(CORPUS, 'typo.config.js')])
  assert.equal(res.code, 2, res.stderr)
  const lines = res.stderr.trim().split('\n')
  assert.match(lines[0], /^xpm: 3 problems in .*typo\.config\.js \(nothing was done\): \[XPM_ERR_CONFIG_UNKNOWN_KEY\]$/)
  assert.deepEqual(lines.slice(1), [
    '  - unknown option "instnces" in app "api" — did you mean "instances"?',
    '  - unknown option "max_memory_restrat" in app "api" — did you mean "max_memory_restart"?',
    '  - unknown option "exec_mod" in app "worker" — did you mean "exec_mode"?'
  ])
  assert.equal(h.daemonPid(), 0, 'no daemon was even started')
})

const { nobodySkipReason: uidSkipReason } = require('../helpers/nobody')

test('uid and gid: the app runs as that user (when the daemon runs as root)', { skip: uidSkipReason() }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = fs.mkdtempSync(path.join(h.home, 'eco-'))
  const file = path.join(dir, 'ecosystem.json')
  fs.writeFileSync(file, JSON.stringify({
    apps: [
      { name: 'as-nobody', script: APP, cwd: CORPUS, user: 'nobody' },
      { name: 'as-root', script: APP, cwd: CORPUS, exec_mode: 'cluster', instances: 1, uid: 0, gid: 0 },
      { name: 'cluster-nobody', script: APP, cwd: CORPUS, exec_mode: 'cluster', instances: 1, uid: 65534, gid: 65534 },
      { name: 'cluster-default', script: APP, cwd: CORPUS, exec_mode: 'cluster', instances: 1 }
    ]
  }))
  const res = await h.run(['start', file])
  assert.equal(res.code, 0, res.stderr)
  const ids = (pid) => {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    return [/^Uid:\s+(\d+)/m.exec(status)[1], /^Gid:\s+(\d+)/m.exec(status)[1]].map(Number)
  }
  const list = await h.jlist()
  const pid = (name) => list.find((p) => p.name === name).pid
  assert.deepEqual(ids(pid('as-nobody')), [65534, 65534], 'a user without gid runs with its own group')
  assert.deepEqual(ids(pid('as-root')), [0, 0])
  assert.deepEqual(ids(pid('cluster-nobody')), [65534, 65534])
  assert.deepEqual(ids(pid('cluster-default')), [0, 0], 'no cluster worker inherits another app\'s uid')
})

test('xpm start worker.py runs it with Python, picked by its extension as PM2 does', async (t) => {
  const { inferInterpreter } = require('../../lib/shared/config/script')
  const python = inferInterpreter(path.join(CORPUS, 'worker.py')).interpreter
  const { spawnSync } = require('node:child_process')
  if (spawnSync(python, ['--version']).status !== 0) return t.skip(`no ${python} here`)
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', path.join(CORPUS, 'worker.py')])
  assert.equal(res.code, 0, res.stderr)
  const [proc] = await h.jlist()
  assert.deepEqual([proc.name, proc.mode, proc.status], ['worker', 'fork', 'online'])
  assert.match(path.basename(cmdline(proc.pid)[0]), /^python/)
  assert.equal(cmdline(proc.pid).at(-1), path.join(CORPUS, 'worker.py'))
})
