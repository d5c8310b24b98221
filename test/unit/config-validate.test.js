'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { resolveStart, normalizeApp, validateSpec, checkSpec } = require('../../lib/shared/config')
const { suggest, distance } = require('../../lib/shared/config/suggest')
const { OPTIONS } = require('../../lib/shared/config/options')
const { tempDir } = require('../helpers/tmp')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ecosystems')
const env = { PATH: process.env.PATH }
const app = (raw, opts = {}) => normalizeApp({ script: 'app.js', ...raw }, { baseDir: FIXTURES, env, cpus: 8, ...opts })

function rejects (promise, code, message) {
  return assert.rejects(promise, (err) => {
    assert.equal(err.code, code)
    assert.equal(err.exitCode, 2)
    if (typeof message === 'string') assert.equal(err.message, message)
    else assert.match(err.message, message)
    return true
  })
}

test('a misspelled key fails with the nearest known key', async () => {
  await rejects(resolveStart({ target: path.join(FIXTURES, 'misspelled.config.js'), env }),
    'XPM_ERR_CONFIG_UNKNOWN_KEY', 'unknown option "kill_timout" in app "api" — did you mean "kill_timeout"?')
  assert.throws(() => app({ name: 'w', killTimout: 5 }), { message: 'unknown option "killTimout" in app "w" — did you mean "kill_timeout"?' })
  assert.throws(() => app({ name: 'w', instnces: 2 }), { message: 'unknown option "instnces" in app "w" — did you mean "instances"?' })
})

test('as PM2, a key that is no typo of a known one is ignored, with a notice', async () => {
  const dir = tempDir('xpm-keys-')
  try {
    fs.writeFileSync(path.join(dir, 'x.js'), '')
    const file = path.join(dir, 'eco.json')
    fs.writeFileSync(file, JSON.stringify({ apps: [{ name: 'w', script: 'x.js', flavour: 'vanilla', max: 1 }] }))
    const { specs, notices } = await resolveStart({ target: file, env })
    assert.equal(specs.length, 1)
    assert.equal(specs[0].flavour, undefined)
    assert.deepEqual(notices, ['`flavour` in app "w": not an option of xpm or PM2; ignored', '`max` in app "w": not an option of xpm or PM2; ignored'])
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('suggest: close typos only', () => {
  assert.equal(distance('kill_tiemout', 'kill_timeout'), 1)
  assert.equal(suggest('instnces', ['instances', 'name']), 'instances')
  assert.equal(suggest('exec-mode', ['exec_mode']), 'exec_mode')
  assert.equal(suggest('zzz', ['name', 'args']), null)
})

test('a wrong type names the app, the key, what was expected and what was given', async () => {
  await rejects(resolveStart({ target: path.join(FIXTURES, 'wrong-type.json'), env }), 'XPM_ERR_CONFIG_INVALID',
    'Expected `instances` to be a number, "max" or a negative number, got "maxx" in app "api"')
  assert.throws(() => app({ name: 'a', kill_timeout: '5 secs' }), {
    message: 'Expected `kill_timeout` to be a duration like "200ms", "5s", "2m", "1h" or a number of milliseconds, got "5 secs" in app "a"'
  })
  assert.throws(() => app({ name: 'a', autorestart: 'no' }), { message: 'Expected `autorestart` to be true or false, got "no" in app "a"' })
  assert.throws(() => app({ name: 'a', env: { A: () => 1 } }), { code: 'XPM_ERR_CONFIG_INVALID', message: /`env`/ })
  assert.throws(() => app({ name: 'a', exec_mode: 'cluter' }), { message: /Expected `exec_mode` to be "cluster" or "fork", got "cluter"/ })
  assert.throws(() => app({ name: 'a', kill_signal: 'SIGNOPE' }), { message: /`kill_signal`/ })
  assert.throws(() => app({ name: 'a', cron_restart: 'every day' }), { message: /`cron_restart`/ })
  assert.throws(() => app({ name: 'a', log_type: 'xml' }), { message: /`log_type`/ })
  assert.throws(() => app({ name: 'a', stop_exit_codes: [0, 300] }), { message: /`stop_exit_codes`/ })
  assert.equal(app({ name: '42' }).name, '42', 'a name of digits, as PM2 allows')
  assert.throws(() => app({ name: 'all' }), { code: 'XPM_ERR_CONFIG_INVALID' })
  assert.throws(() => normalizeApp({ name: 'x' }, { baseDir: FIXTURES, env }), { message: 'Expected `script` to be a path, got nothing in app "x"' })
})

test('several problems in one file: all of them, one per line, each with its app and key', async () => {
  const dir = tempDir('xpm-many-')
  const file = path.join(dir, 'ecosystem.json')
  fs.writeFileSync(path.join(dir, 'x.js'), '')
  fs.writeFileSync(file, JSON.stringify({
    apps: [
      { name: 'a', script: 'x.js', instances: 'lots', kill_timout: 1 },
      { name: 'b', script: 'x.js', wacth: true },
      { name: 'c', script: 'gone.js' },
      { name: 'a', script: 'x.js' }
    ]
  }))
  await assert.rejects(resolveStart({ target: file, env }), (err) => {
    assert.equal(err.code, 'XPM_ERR_CONFIG_INVALID', 'the first problem\'s code')
    assert.equal(err.exitCode, 2)
    const lines = err.message.split('\n')
    assert.equal(lines[0], `4 problems in ${file} (nothing was done):`)
    assert.deepEqual(lines.slice(1), [
      '  - Expected `instances` to be a number, "max" or a negative number, got "lots" in app "a"',
      '  - unknown option "kill_timout" in app "a" — did you mean "kill_timeout"?',
      '  - unknown option "wacth" in app "b" — did you mean "watch"?',
      `  - script "gone.js" in app "c" not found: ${path.join(dir, 'gone.js')} does not exist`
    ])
    assert.deepEqual(err.details.problems.map((p) => [p.code, p.app ?? null, p.key ?? null]), [
      ['XPM_ERR_CONFIG_INVALID', 'a', 'instances'],
      ['XPM_ERR_CONFIG_UNKNOWN_KEY', 'a', 'kill_timout'],
      ['XPM_ERR_CONFIG_UNKNOWN_KEY', 'b', 'wacth'],
      ['XPM_ERR_SCRIPT_NOT_FOUND', null, null]
    ])
    return true
  })
  // the app-name clash is reported once the apps themselves are valid
  fs.writeFileSync(file, JSON.stringify({ apps: [{ name: 'a', script: 'x.js' }, { name: 'a', script: 'x.js' }, { name: 'b', script: 'x.js', nmae: 'b' }] }))
  await assert.rejects(resolveStart({ target: file, env }), (err) => {
    assert.match(err.message, /^2 problems in .*\n {2}- unknown option "nmae" in app "b" — did you mean "name"\?\n {2}- two apps are named "a"/)
    return true
  })
})

test('duplicate app names are rejected', async () => {
  await rejects(resolveStart({ target: path.join(FIXTURES, 'duplicate.json'), env }), 'XPM_ERR_DUPLICATE_APP', /two apps are named "api"/)
})

test('a missing script is rejected with the path it looked for', async () => {
  await rejects(resolveStart({ target: path.join(FIXTURES, 'missing-script.json'), env }), 'XPM_ERR_SCRIPT_NOT_FOUND',
    `script "not-here.js" in app "ghost" not found: ${path.join(FIXTURES, 'not-here.js')} does not exist`)
  await rejects(resolveStart({ target: 'nope.js', cwd: FIXTURES, env }), 'XPM_ERR_SCRIPT_NOT_FOUND', /nope\.js/)
  await rejects(resolveStart({ target: './sub', cwd: FIXTURES, env }), 'XPM_ERR_SCRIPT_NOT_FOUND', /is not a file/)
})

test('a script without a slash that is not in cwd is looked up on PATH', () => {
  const spec = normalizeApp({ script: 'sh', name: 'shell' }, { baseDir: FIXTURES, env })
  assert.ok(path.isAbsolute(spec.script))
  assert.equal(spec.interpreter, 'none')
  assert.equal(spec.execMode, 'fork')
})

test('instances: N, "max", 0, -1, -N; anything else is rejected', () => {
  assert.equal(app({ instances: 3 }).instances, 3)
  assert.equal(app({ instances: 'max' }).instances, 8)
  assert.equal(app({ instances: 0 }).instances, 8)
  assert.equal(app({ instances: -1 }).instances, 7)
  assert.equal(app({ instances: -3 }).instances, 5)
  assert.equal(app({ instances: -20 }).instances, 1)
  assert.equal(app({}).instances, 1)
  assert.equal(normalizeApp({ script: 'app.js', instances: 'max' }, { baseDir: FIXTURES, env }).instances, os.availableParallelism())
  for (const bad of ['maxx', 1.5, true, '2x', null]) {
    assert.throws(() => app({ instances: bad }), { code: 'XPM_ERR_CONFIG_INVALID', message: /^Expected `instances` to be a number, "max" or a negative number, got / })
  }
})

test('exec mode: cluster with instances on node, fork otherwise; aliases; cluster needs node', () => {
  assert.equal(app({}).execMode, 'fork')
  assert.equal(app({ instances: 2 }).execMode, 'cluster')
  assert.equal(app({ instances: 1 }).execMode, 'cluster')
  assert.equal(app({ instances: 2, exec_mode: 'fork' }).execMode, 'fork')
  assert.equal(app({ exec_mode: 'cluster_mode' }).execMode, 'cluster')
  assert.equal(app({ exec_mode: 'fork_mode', instances: 2 }).execMode, 'fork')
  assert.equal(app({ interpreter: 'python3', instances: 2 }).execMode, 'fork')
  assert.throws(() => app({ name: 'py', interpreter: 'python3', exec_mode: 'cluster' }), {
    code: 'XPM_ERR_CONFIG_INVALID', message: /cluster mode runs Node scripts only.* in app "py"/
  })
})

test('interpreter: explicit wins, then the extension, then the executable bit', () => {
  const dir = tempDir('xpm-interp-')
  for (const f of ['a.mjs', 'a.cjs', 'a.py', 'a.sh', 'plain', 'data.txt']) fs.writeFileSync(path.join(dir, f), '')
  fs.writeFileSync(path.join(dir, 'tool'), '#!/bin/sh\n', { mode: 0o755 })
  const interp = (script, raw = {}) => normalizeApp({ script, ...raw }, { baseDir: dir, env }).interpreter
  assert.equal(interp('a.mjs'), 'node')
  assert.equal(interp('a.cjs'), 'node')
  assert.equal(interp('a.py'), 'python3')
  assert.equal(interp('a.sh'), 'bash')
  assert.equal(interp('tool'), 'none')
  assert.equal(interp('plain'), 'node')
  assert.equal(interp('data.txt'), 'node')
  assert.equal(interp('a.py', { interpreter: '/usr/bin/python3.12' }), '/usr/bin/python3.12')
  assert.equal(normalizeApp({ script: 'a.py' }, { baseDir: dir, env }).metrics, false, 'no agent outside node')
})

test('defaults match the normalized spec of CONTEXT and validateSpec accepts it', () => {
  const spec = app({ name: 'd' })
  const expected = {
    name: 'd',
    script: undefined,
    cwd: undefined,
    env: undefined,
    args: [],
    interpreter: 'node',
    nodeArgs: [],
    instances: 1,
    execMode: 'fork',
    autorestart: true,
    maxRestarts: 16,
    restartWindow: 60000,
    minUptime: 1000,
    restartDelay: 0,
    expBackoffRestartDelay: 100,
    maxBackoffDelay: 15000,
    stopExitCodes: [],
    killTimeout: 5000,
    killSignal: 'SIGINT',
    listenTimeout: 8000,
    waitReady: false,
    shutdownWithMessage: false,
    metrics: true,
    watch: false,
    ignoreWatch: [],
    watchDelay: 1000,
    maxMemoryRestart: null,
    cronRestart: null,
    namespace: 'default',
    dependsOn: [],
    instanceVar: 'NODE_APP_INSTANCE',
    incrementVar: null,
    autostart: true,
    force: false,
    sourceMapSupport: false,
    killRetryTime: 100,
    treekill: true,
    pidFile: null,
    uid: null,
    gid: null,
    logs: {
      outFile: null,
      errorFile: null,
      logFile: null,
      perInstance: false,
      time: false,
      dateFormat: null,
      json: false,
      rotate: { size: 10485760, maxFiles: 10, interval: null, compress: false }
    }
  }
  // the fields above, and every other field of the table (options others add) at its default
  for (const [key, value] of Object.entries(expected)) if (value !== undefined) assert.deepEqual(spec[key], value, key)
  for (const option of OPTIONS.filter((o) => o.target && !o.into && !o.pattern && o.key !== 'env' && o.default !== undefined)) {
    const value = option.target.split('.').reduce((o, k) => o[k], spec)
    assert.deepEqual(option.key === 'log_type' ? (value ? 'json' : 'raw') : option.key === 'merge_logs' ? !value : value, option.default, option.key)
  }
  assert.deepEqual(checkSpec(spec), [])
  assert.equal(validateSpec(spec), spec)
})

test('a spec saved by an earlier xpm (without the newer fields) is completed with the defaults of the table', () => {
  const spec = app({ name: 'old' })
  for (const key of ['namespace', 'instanceVar', 'incrementVar', 'autostart', 'force', 'sourceMapSupport', 'killRetryTime', 'treekill', 'pidFile', 'uid', 'gid']) delete spec[key]
  delete spec.logs.rotate.compress
  assert.deepEqual(checkSpec(spec), [])
  assert.equal(validateSpec(spec), spec)
  assert.deepEqual([spec.namespace, spec.instanceVar, spec.autostart, spec.treekill, spec.killRetryTime, spec.logs.rotate.compress], ['default', 'NODE_APP_INSTANCE', true, true, 100, false])
})

test('option values reach the spec', () => {
  const spec = app({
    args: '--port "3 000"',
    node_args: ['--max-old-space-size=64'],
    autorestart: false,
    max_restarts: 3,
    restart_window: '30s',
    min_uptime: '2s',
    restart_delay: 250,
    exp_backoff_restart_delay: '1s',
    max_backoff_delay: '1m',
    stop_exit_codes: 0,
    kill_timeout: '3s',
    kill_signal: 'sigterm',
    listen_timeout: '10s',
    wait_ready: true,
    shutdown_with_message: true,
    merge_logs: false,
    log_date_format: 'YYYY',
    time: true,
    log_type: 'json',
    log_max_size: '1M',
    log_max_files: 3,
    log_interval: '1d',
    log_compress: true,
    metrics: false,
    ignore_watch: 'tmp,*.log',
    watch_delay: '2s',
    max_memory_restart: '100M',
    cron_restart: '0 3 * * *',
    interpreter_args: '--inspect'
  })
  assert.deepEqual(spec.args, ['--port', '3 000'])
  assert.deepEqual(spec.nodeArgs, ['--inspect'], 'the alias interpreter_args, given last, wins')
  assert.deepEqual([spec.autorestart, spec.maxRestarts, spec.restartWindow, spec.minUptime, spec.restartDelay], [false, 3, 30000, 2000, 250])
  assert.deepEqual([spec.expBackoffRestartDelay, spec.maxBackoffDelay, spec.stopExitCodes], [1000, 60000, [0]])
  assert.deepEqual([spec.killTimeout, spec.killSignal, spec.listenTimeout, spec.waitReady, spec.shutdownWithMessage], [3000, 'SIGTERM', 10000, true, true])
  assert.deepEqual(spec.logs, {
    outFile: null,
    errorFile: null,
    logFile: null,
    perInstance: true,
    time: true,
    dateFormat: 'YYYY',
    json: true,
    rotate: { size: 1048576, maxFiles: 3, interval: 86400000, compress: true }
  })
  assert.deepEqual([spec.metrics, spec.ignoreWatch, spec.watchDelay, spec.maxMemoryRestart, spec.cronRestart],
    [false, ['tmp', '*.log'], 2000, 100 * 1024 * 1024, '0 3 * * *'])
  assert.deepEqual(checkSpec(spec), [])
})

test('validateSpec lists what is wrong with a spec from the socket', () => {
  const spec = { ...app({ name: 'x' }), script: 'relative.js', instances: 0, execMode: 'cluster', interpreter: 'python3' }
  const problems = checkSpec(spec)
  assert.ok(problems.some((p) => p.startsWith('script should be an absolute path')))
  assert.ok(problems.some((p) => p.startsWith('instances should be')))
  assert.ok(problems.includes('execMode "cluster" needs interpreter "node"'))
  assert.throws(() => validateSpec(spec), { code: 'XPM_ERR_CONFIG_INVALID', message: /^Invalid app spec "x": / })
  assert.deepEqual(checkSpec(null), ['an app spec should be an object, got null'])
})

// fast-check seed 518985028 of fuzz-config: an object with no usable toString as exec_mode threw a TypeError
test('exec_mode that is not a string is XPM_ERR_CONFIG_INVALID, not a crash', () => {
  assert.throws(() => app({ name: 'w', exec_mode: { toString: null } }), { code: 'XPM_ERR_CONFIG_INVALID' })
})
