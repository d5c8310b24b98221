'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { resolveStart, normalizeApp, checkSpec, validateSpec } = require('../../lib/shared/config')
const { OPTIONS } = require('../../lib/shared/config/options')
const { MAX_INSTANCES, MAX_APPS, MAX_TIMER_MS, MAX_NAME_BYTES } = require('../../lib/shared/config/limits')
const { checkSpecs, checkPaths, checkCapacity } = require('../../daemon/check-specs')
const { tempDir } = require('../helpers/tmp')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ecosystems')
const env = { PATH: process.env.PATH }
const app = (raw, opts = {}) => normalizeApp({ script: 'app.js', ...raw }, { baseDir: FIXTURES, env, cpus: 8, ...opts })
const good = () => app({ name: 'ok' })

test('instances: at most 1024 in a file, on the command line and in a spec from the socket', async () => {
  assert.equal(app({ instances: MAX_INSTANCES }).instances, MAX_INSTANCES)
  for (const bad of [MAX_INSTANCES + 1, 1e9, '1000000000', -(MAX_INSTANCES + 1)]) {
    assert.throws(() => app({ name: 'big', instances: bad }), {
      code: 'XPM_ERR_CONFIG_INVALID',
      message: new RegExp(`^Expected \`instances\` to be at (most|least) -?${MAX_INSTANCES}, got .* in app "big"$`)
    })
  }
  await assert.rejects(resolveStart({ target: 'app.js', flags: { instances: '1000000000' }, cwd: FIXTURES, env }),
    { code: 'XPM_ERR_CONFIG_INVALID', message: 'Expected `--instances` to be at most 1024, got "1000000000"' })
  assert.equal(app({ instances: 'max' }, { cpus: 5000 }).instances, MAX_INSTANCES, '"max" on a huge machine stays within the limit')
  assert.equal(app({ instances: -MAX_INSTANCES }).instances, 1)
  const problems = checkSpec({ ...good(), instances: 1e9 })
  assert.deepEqual(problems, [`instances should be a whole number from 1 to ${MAX_INSTANCES}, got 1000000000`])
})

test('every duration has a maximum a timer can hold: "25d" is refused, naming the key and the maximum', () => {
  const durations = OPTIONS.filter((o) => o.type === 'duration')
  assert.ok(durations.length >= 8)
  assert.ok(MAX_TIMER_MS < 2 ** 31 - 1)
  for (const option of durations) {
    const max = option.max ?? MAX_TIMER_MS
    assert.equal(app({ [option.key]: max })[option.target.split('.').pop()] ?? app({ [option.key]: max }).logs.rotate.interval, max)
    assert.throws(() => app({ name: 'slow', [option.key]: '400d' }), {
      code: 'XPM_ERR_CONFIG_INVALID',
      message: new RegExp(`^Expected \`${option.key}\` to be at most \\d+d.*, got "400d" in app "slow"$`)
    }, option.key)
  }
  assert.throws(() => app({ name: 'k', kill_timeout: '25d' }), {
    message: 'Expected `kill_timeout` to be at most 24d (a longer delay does not fit a timer), got "25d" in app "k"'
  })
  assert.throws(() => app({ kill_timeout: 2 ** 31 }), { code: 'XPM_ERR_CONFIG_INVALID' })
  assert.equal(app({ kill_timeout: '24d' }).killTimeout, MAX_TIMER_MS)
  assert.equal(app({ log_interval: '30d' }).logs.rotate.interval, 30 * 86_400_000, 'log rotation may be monthly')
  const problems = checkSpec({ ...good(), killTimeout: 25 * 86_400_000, listenTimeout: 1.5 })
  assert.deepEqual(problems, [
    'killTimeout (kill_timeout) should be at most 24d (a longer delay does not fit a timer), got 2160000000',
    'listenTimeout should be a whole number of milliseconds, got 1.5'
  ])
})

test('sizes and counts have sane bounds, in the CLI and in the daemon', async () => {
  assert.throws(() => app({ max_memory_restart: '10K' }), { message: /^Expected `max_memory_restart` to be at least 1M, got "10K"/ })
  assert.throws(() => app({ max_memory_restart: 0 }), { code: 'XPM_ERR_CONFIG_INVALID' })
  assert.throws(() => app({ max_memory_restart: '2048G' }), { message: /at most 1024G/ })
  assert.throws(() => app({ log_max_size: 100 }), { message: /^Expected `log_max_size` to be at least 1K/ })
  assert.throws(() => app({ log_max_files: 1e15 }), { message: /^Expected `log_max_files` to be at most 1000/ })
  assert.throws(() => app({ max_restarts: 1e7 }), { message: /at most 100000/ })
  await assert.rejects(resolveStart({ target: 'app.js', flags: { logMaxSize: '10' }, cwd: FIXTURES, env }), { message: /^Expected `--log-max-size` to be at least 1K, got 10$/ })
  assert.equal(app({ max_memory_restart: '1M' }).maxMemoryRestart, 1024 * 1024)
  const spec = good()
  assert.ok(checkSpec({ ...spec, maxMemoryRestart: 10 }).some((p) => /maxMemoryRestart.*at least 1M/.test(p)))
  assert.ok(checkSpec({ ...spec, logs: { ...spec.logs, rotate: { ...spec.logs.rotate, maxFiles: 1e15 } } }).some((p) => /logs\.rotate\.maxFiles.*at most 1000/.test(p)))
})

test('app names: digits allowed, no control characters, no leading "-", no slashes, at most 128 bytes; the same rule in the daemon', () => {
  const bad = ['-rf', '--help', 'a\nb', 'tab\there', 'bell\u0007', 'del\u007f', 'c1\u0085', 'ls\u2028', 'a/b', 'a\\b', 'nul\0',
    'all', ' pad', 'x'.repeat(MAX_NAME_BYTES + 1), 'é'.repeat(MAX_NAME_BYTES / 2 + 1), 'lone\ud800']
  for (const name of bad) {
    assert.throws(() => app({ name }), { code: 'XPM_ERR_CONFIG_INVALID', message: /^Expected `name` to be a name of at most 128 bytes/ }, JSON.stringify(name))
    assert.ok(checkSpec({ ...good(), name }).some((p) => p.startsWith('name should be')), JSON.stringify(name))
  }
  for (const name of ['api', '42', 'my app', 'web.1', 'a-b_c', 'x'.repeat(MAX_NAME_BYTES), 'é'.repeat(MAX_NAME_BYTES / 2), 'café ☕']) {
    assert.equal(app({ name }).name, name)
    assert.deepEqual(checkSpec({ ...good(), name }), [])
  }
  // a name taken from the script file name follows the same rule
  const dir = tempDir('xpm-names-')
  fs.writeFileSync(path.join(dir, '-x.js'), '')
  assert.throws(() => normalizeApp({ script: '-x.js' }, { baseDir: dir, env }), { code: 'XPM_ERR_CONFIG_INVALID', message: /`name`/ })
})

test('strings that reach spawn() or a file name cannot hold a NUL byte', () => {
  for (const raw of [{ args: ['a\0b'] }, { args: 'a\0b' }, { node_args: ['--x\0'] }, { env: { A: 'x\0y' } }, { env: { 'A\0': 'x' } },
    { interpreter: 'no\0de' }, { out_file: '/tmp/a\0b' }, { cwd: 'a\0' }, { ignore_watch: ['a\0'] }]) {
    assert.throws(() => app(raw), { code: 'XPM_ERR_CONFIG_INVALID' }, JSON.stringify(raw))
  }
  const spec = good()
  for (const change of [{ args: ['a\0'] }, { env: { A: 'x\0' } }, { script: '/a\0' }, { cwd: '/tmp\0' }, { env: { A: 1 } }, { args: [1] }]) {
    assert.notDeepEqual(checkSpec({ ...spec, ...change }), [], JSON.stringify(change))
  }
})

test('the daemon checks every option as the CLI does: cron, signals, enums, env, args, nested logs', () => {
  const spec = good()
  const refused = {
    cronRestart: 'every day',
    killSignal: 'SIGNOPE',
    execMode: 'cluster_mode',
    interpreter: '',
    env: { A: { nested: true } },
    args: 'a b',
    nodeArgs: [1],
    stopExitCodes: [300],
    watch: ['relative'],
    ignoreWatch: 'x',
    autorestart: 'yes',
    maxRestarts: -1,
    restartDelay: -5,
    logs: { ...spec.logs, outFile: 'relative.log' },
    metrics: 1
  }
  for (const [key, value] of Object.entries(refused)) {
    const problems = checkSpec({ ...spec, [key]: value })
    assert.equal(problems.length, 1, `${key}: ${problems}`)
    assert.throws(() => validateSpec({ ...spec, [key]: value }), { code: 'XPM_ERR_CONFIG_INVALID', message: /^Invalid app spec "ok": / })
  }
  assert.ok(checkSpec({ ...spec, cronRestart: '0 0 30 2 *' }).some((p) => /cronRestart should be null or a cron expression that fires/.test(p)),
    'a schedule that never fires (February 30th) is refused')
  assert.throws(() => app({ cron_restart: '0 0 30 2 *' }), { message: /`cron_restart`/ })
  assert.deepEqual(checkSpec({ ...spec, logs: 'x' }), ['logs should be an object, got "x"'])
  assert.deepEqual(checkSpec({ ...spec, logs: { ...spec.logs, rotate: null } }), ['logs.rotate should be an object, got null'])
  assert.deepEqual(checkSpec({ ...spec, cronRestart: '*/5 * * * *', killSignal: 'SIGTERM', somethingNew: 1 }), [], 'unknown fields are ignored')
  assert.deepEqual(checkSpec(JSON.parse(JSON.stringify(app({ instances: 4, cron_restart: '0 3 * * *', kill_signal: 'usr2', watch: true, log: true, env: { N: 1 } })))), [])
})

test('a missing or non-directory cwd is reported as such, in the CLI and in the daemon', async () => {
  assert.throws(() => app({ name: 'c', cwd: 'missing-dir' }), {
    code: 'XPM_ERR_CWD_INVALID', message: `cwd ${path.join(FIXTURES, 'missing-dir')} in app "c" does not exist`
  })
  assert.throws(() => app({ name: 'c', cwd: 'app.js' }), { code: 'XPM_ERR_CWD_INVALID', message: /is not a directory/ })
  const spec = good()
  await assert.rejects(checkPaths([{ ...spec, cwd: '/nonexistent/xpm-dir' }]), { code: 'XPM_ERR_CWD_INVALID', message: 'cwd /nonexistent/xpm-dir of app "ok" does not exist' })
  await assert.rejects(checkPaths([{ ...spec, cwd: spec.script }]), { code: 'XPM_ERR_CWD_INVALID', message: /is not a directory/ })
  await assert.rejects(checkPaths([{ ...spec, script: '/nonexistent/app.js' }]), { code: 'XPM_ERR_SCRIPT_NOT_FOUND' })
  await assert.rejects(checkPaths([{ ...spec, script: FIXTURES }]), { code: 'XPM_ERR_SCRIPT_NOT_FOUND', message: /is not a file/ })
  assert.deepEqual(await checkPaths([spec]), [spec])
})

test('the number of apps: per ecosystem file, per start request and per daemon', async () => {
  const spec = good()
  assert.throws(() => checkSpecs([]), { code: 'XPM_ERR_CONFIG_INVALID' })
  assert.throws(() => checkSpecs({}), { code: 'XPM_ERR_CONFIG_INVALID' })
  assert.throws(() => checkSpecs(Array.from({ length: MAX_APPS + 1 }, (_, i) => ({ ...spec, name: `a${i}` }))), {
    code: 'XPM_ERR_CONFIG_INVALID', message: `Expected at most ${MAX_APPS} app specs in one request, got ${MAX_APPS + 1}`
  })
  assert.throws(() => checkSpecs([spec, spec]), { code: 'XPM_ERR_DUPLICATE_APP' })
  const known = new Set(Array.from({ length: MAX_APPS - 1 }, (_, i) => `k${i}`))
  checkCapacity([spec, { ...spec, name: 'k1' }], known)
  assert.throws(() => checkCapacity([spec, { ...spec, name: 'new' }], known), { code: 'XPM_ERR_TOO_MANY_APPS', message: /would make 1025; one daemon manages at most 1024/ })

  const dir = tempDir('xpm-many-apps-')
  const file = path.join(dir, 'ecosystem.json')
  fs.writeFileSync(file, JSON.stringify({ apps: Array.from({ length: MAX_APPS + 1 }, (_, i) => ({ name: `a${i}`, script: 'x.js' })) }))
  await assert.rejects(resolveStart({ target: file, env }), { code: 'XPM_ERR_CONFIG_INVALID', message: /has 1025 apps; one daemon manages at most 1024$/ })
})
