'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const os = require('node:os')
const path = require('node:path')
const { resolveStart, resolveTargets } = require('../../lib/shared/config')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ecosystems')
const FILE = path.join(FIXTURES, 'ecosystem.config.js')
const env = { PATH: process.env.PATH, FROM_CLI: 'cli', SHARED: 'from cli', XPM_HOME: path.join(os.tmpdir(), 'xpm-home-test') }
const byName = (specs) => Object.fromEntries(specs.map((s) => [s.name, s]))

test('a script target gives one spec; default name is the file name without extension', async () => {
  const result = await resolveStart({ target: 'app.js', cwd: FIXTURES, env, scriptArgs: ['--port', 3000] })
  assert.equal(result.kind, 'script')
  const [spec] = result.specs
  assert.equal(spec.name, 'app')
  assert.equal(spec.script, path.join(FIXTURES, 'app.js'))
  assert.equal(spec.cwd, FIXTURES)
  assert.deepEqual(spec.args, ['--port', '3000'])
  assert.equal(spec.env.FROM_CLI, 'cli', 'the CLI environment at start reaches the app')
  assert.equal(spec.execMode, 'fork')
})

test('a target that is not a file and not path-like is an app name or id', async () => {
  assert.deepEqual(await resolveStart({ target: 'api', cwd: FIXTURES, env }), { kind: 'name', name: 'api' })
  assert.deepEqual(await resolveStart({ target: '3', cwd: FIXTURES, env }), { kind: 'name', name: '3' })
  assert.deepEqual(await resolveStart({ target: 'sub', cwd: FIXTURES, env }), { kind: 'name', name: 'sub' }, 'a folder is not a script')
  await assert.rejects(resolveStart({ target: 'api', flags: { instances: 'maxx' }, cwd: FIXTURES, env }), { code: 'XPM_ERR_CONFIG_INVALID' })
  await assert.rejects(resolveStart({ target: 'api', only: 'x', cwd: FIXTURES, env }), { code: 'XPM_ERR_BAD_ARGUMENT', message: '--only needs an ecosystem file, got "api"' })
})

test('CLI flags (as commander gives them) reach the spec and are checked', async () => {
  const flags = {
    instances: '-1',
    name: 'web',
    killTimeout: '3s',
    listenTimeout: '2000',
    nodeArgs: '--max-old-space-size=64 --no-warnings',
    autorestart: false,
    metrics: true,
    output: 'out.log',
    log: true,
    logMaxSize: '1M',
    stopExitCodes: '0,2',
    watch: 'sub',
    waitReady: true,
    logType: 'json',
    execMode: 'fork'
  }
  const [spec] = (await resolveStart({ target: 'app.js', flags, cwd: FIXTURES, env })).specs
  assert.equal(spec.name, 'web')
  assert.equal(spec.instances, Math.max(1, os.availableParallelism() - 1))
  assert.equal(spec.execMode, 'fork')
  assert.equal(spec.killTimeout, 3000)
  assert.equal(spec.listenTimeout, 2000, 'a bare number on the command line is milliseconds')
  assert.deepEqual(spec.nodeArgs, ['--max-old-space-size=64', '--no-warnings'])
  assert.equal(spec.autorestart, false)
  assert.equal(spec.metrics, true, 'commander\'s default true for --no-metrics is not a flag')
  assert.equal(spec.logs.outFile, path.join(FIXTURES, 'out.log'))
  assert.equal(spec.logs.logFile, path.join(env.XPM_HOME, 'logs', 'web.log'))
  assert.equal(spec.logs.rotate.size, 1048576)
  assert.equal(spec.logs.json, true)
  assert.deepEqual(spec.stopExitCodes, [0, 2])
  assert.deepEqual(spec.watch, [path.join(FIXTURES, 'sub')])
  assert.equal(spec.waitReady, true)
  await assert.rejects(resolveStart({ target: 'app.js', flags: { killTimeout: 'soon' }, cwd: FIXTURES, env }), {
    code: 'XPM_ERR_CONFIG_INVALID', message: /^Expected `--kill-timeout` to be a duration .* got "soon"$/
  })
  await assert.rejects(resolveStart({ target: 'app.js', flags: { instances: 'maxx' }, cwd: FIXTURES, env }), {
    message: 'Expected `--instances` to be a number, "max" or a negative number, got "maxx"'
  })
})

test('-i on a node script means cluster mode unless --exec-mode fork', async () => {
  const mode = async (flags) => (await resolveStart({ target: 'app.js', flags, cwd: FIXTURES, env })).specs[0].execMode
  assert.equal(await mode({ instances: '2' }), 'cluster')
  assert.equal(await mode({ instances: 'max' }), 'cluster')
  assert.equal(await mode({ instances: '2', execMode: 'fork' }), 'fork')
  assert.equal(await mode({}), 'fork')
})

test('ecosystem file: values, relative paths against the file folder and the app cwd', async () => {
  const result = await resolveStart({ target: 'ecosystem.config.js', cwd: FIXTURES, env })
  assert.equal(result.kind, 'ecosystem')
  assert.equal(result.file, FILE)
  const { api, nested } = byName(result.specs)
  assert.equal(api.instances, 2)
  assert.equal(api.execMode, 'cluster')
  assert.equal(api.killTimeout, 3000)
  assert.equal(api.cwd, FIXTURES)
  assert.equal(api.env.PORT, '3000')
  assert.equal(nested.cwd, path.join(FIXTURES, 'sub'))
  assert.equal(nested.script, path.join(FIXTURES, 'sub', 'app.js'))
  assert.equal(nested.logs.outFile, path.join(FIXTURES, 'sub', 'logs', 'out.log'))
  assert.equal(nested.logs.errorFile, '/var/tmp/err.log')
  assert.deepEqual(nested.watch, [path.join(FIXTURES, 'sub')])
  // the file is found from another folder, and its paths still resolve against its own folder
  const elsewhere = await resolveStart({ target: FILE, cwd: os.tmpdir(), env })
  assert.deepEqual(elsewhere.specs.map((s) => s.script), result.specs.map((s) => s.script))
})

test('env: CLI env < env < env_file < env_<name>', async () => {
  const plain = byName((await resolveStart({ target: FILE, env })).specs)
  assert.equal(plain.api.env.SHARED, 'from env')
  assert.equal(plain.api.env.NODE_ENV, undefined)
  assert.equal(plain.api.env.FROM_CLI, 'cli')
  assert.equal(plain.worker.env.FROM_FILE, 'yes', 'env_file reaches the app')
  assert.equal(plain.worker.env.SHARED, 'from file', 'env_file wins over env')

  const prod = byName((await resolveStart({ target: FILE, env, envName: 'production' })).specs)
  assert.equal(prod.api.env.NODE_ENV, 'production')
  assert.equal(prod.api.env.SHARED, 'from production')
  assert.equal(prod.api.env.PORT, '3000')
  assert.equal(prod.worker.env.NODE_ENV, undefined, 'an app without env_production keeps its env')

  const viaFlags = byName((await resolveStart({ target: FILE, env, flags: { env: 'production' } })).specs)
  assert.equal(viaFlags.api.env.NODE_ENV, 'production', 'flags.env (commander --env) selects the section too')

  await assert.rejects(resolveStart({ target: FILE, env, envName: 'prodution' }), {
    code: 'XPM_ERR_BAD_ARGUMENT', message: /no app in .* has "env_prodution" — did you mean "production"\? \(known: production\)/
  })
  const withEnvFileFlag = (await resolveStart({ target: FILE, env, only: 'api', flags: { envFile: 'app.env' }, cwd: FIXTURES })).specs[0]
  assert.equal(withEnvFileFlag.env.FROM_FILE, 'yes')
})

test('--only selects apps; an unknown name lists the known ones', async () => {
  const names = async (only) => (await resolveStart({ target: FILE, env, only })).specs.map((s) => s.name)
  assert.deepEqual(await names('api'), ['api'])
  assert.deepEqual(await names('worker, nested'), ['worker', 'nested'])
  assert.deepEqual(await names(['api', 'nested']), ['api', 'nested'])
  await assert.rejects(resolveStart({ target: FILE, env, only: 'wroker' }), {
    code: 'XPM_ERR_BAD_ARGUMENT', message: /^--only "wroker": no such app in .* — did you mean "worker"\? \(apps: api, worker, nested\)$/
  })
})

test('flags override file values for every selected app; args after -- replace args', async () => {
  const { specs } = await resolveStart({
    target: FILE, env, only: 'api,worker', flags: { killTimeout: '9s', instances: '3', maxMemoryRestart: '64M' }, scriptArgs: ['x']
  })
  for (const spec of specs) {
    assert.equal(spec.killTimeout, 9000)
    assert.equal(spec.instances, 3)
    assert.equal(spec.execMode, 'cluster')
    assert.equal(spec.maxMemoryRestart, 64 * 1024 * 1024)
    assert.deepEqual(spec.args, ['x'])
  }
  await assert.rejects(resolveStart({ target: FILE, env, flags: { name: 'same' } }), { code: 'XPM_ERR_DUPLICATE_APP' })
})

test('resolveTargets: names and specs of a file, or a plain name', async () => {
  assert.deepEqual(await resolveTargets({ target: 'api' }), { kind: 'name', name: 'api' })
  assert.deepEqual(await resolveTargets({ target: 'all' }), { kind: 'name', name: 'all' })
  const result = await resolveTargets({ target: FILE, env, only: 'api,worker', envName: 'production' })
  assert.equal(result.kind, 'ecosystem')
  assert.deepEqual(result.names, ['api', 'worker'])
  assert.equal(result.specs[0].env.NODE_ENV, 'production')
  const namesOnly = await resolveTargets({ target: path.join(FIXTURES, 'missing-script.json'), withSpecs: false })
  assert.deepEqual(namesOnly, { kind: 'ecosystem', file: path.join(FIXTURES, 'missing-script.json'), names: ['ghost'] },
    'stop/delete still work when a script has gone')
  await assert.rejects(resolveTargets({ target: path.join(FIXTURES, 'missing-script.json') }), { code: 'XPM_ERR_SCRIPT_NOT_FOUND' })
})
