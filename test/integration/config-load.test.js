'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { loadEcosystem, isEcosystemFile, resolveStart } = require('../../lib/shared/config')
const { tempDir } = require('../helpers/tmp')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ecosystems')
const fixture = (name) => path.join(FIXTURES, name)
const env = { PATH: process.env.PATH }

test('isEcosystemFile: ecosystem*, *.config.* and .json are configs; a plain script is not', () => {
  for (const name of ['ecosystem.config.js', 'ecosystem.config.cjs', 'ecosystem.mjs', 'ecosystem.json', 'ecosystem-prod.js',
    'dir/xpm.config.js', 'apps.config.mjs', 'apps.json', 'pm2.yml']) {
    assert.equal(isEcosystemFile(name), true, name)
  }
  for (const name of ['server.js', 'app.mjs', 'config.js', 'run.sh', 'ecosystem', 'api', '3', 'my-ecosystem/server.js']) {
    assert.equal(isEcosystemFile(name), false, name)
  }
})

test('each format loads: .js, .cjs, .mjs with export default, .json, bare array', async () => {
  const names = async (file) => (await resolveStart({ target: fixture(file), env })).specs.map((s) => s.name)
  assert.deepEqual(await names('ecosystem.config.js'), ['api', 'worker', 'nested'])
  assert.deepEqual(await names('ecosystem.config.cjs'), ['cjs-app'])
  assert.deepEqual(await names('ecosystem.config.mjs'), ['mjs-app'])
  assert.deepEqual(await names('ecosystem.json'), ['json-app'])
  assert.deepEqual(await names('bare-array.config.js'), ['app'])

  const mjs = (await resolveStart({ target: fixture('ecosystem.config.mjs'), env })).specs[0]
  assert.equal(mjs.logs.rotate.size, 1024 * 1024)
  assert.equal(mjs.minUptime, 2000)
  const cjs = (await resolveStart({ target: fixture('ecosystem.config.cjs'), env })).specs[0]
  assert.equal(cjs.maxMemoryRestart, 200 * 1024 * 1024)
})

test('a .json file with PM2-style comments, unquoted keys and trailing commas is read (JSON5), never run', async () => {
  const dir = tempDir('xpm-json5-')
  fs.writeFileSync(path.join(dir, 'child.js'), '')
  const file = path.join(dir, 'process.json')
  fs.writeFileSync(file, '// TG!\n{\n  apps: [{ script: "./child.js", name  :"child", },],\n}\n')
  const { specs } = await resolveStart({ target: file, env })
  assert.deepEqual(specs.map((s) => s.name), ['child'])
})

test('a .json file that is a JavaScript expression is read as PM2 reads it, with a notice; one with statements or Node access is rejected', async () => {
  const dir = tempDir('xpm-jsexpr-')
  fs.writeFileSync(path.join(dir, 'echo.js'), '')
  const file = path.join(dir, 'configuration.json')
  fs.writeFileSync(file, '// TG!\n[{\n  name: "echo",\n  script: [".", "/", "e", "cho.js"].join("")\n}]\n')
  const { specs, notices } = await resolveStart({ target: file, env })
  assert.deepEqual(specs.map((s) => [s.name, path.basename(s.script)]), [['echo', 'echo.js']])
  assert.deepEqual(notices, ['`configuration.json`: not JSON: read as a JavaScript expression, as PM2 reads .json files; rename it .js to say so'])
  fs.writeFileSync(file, '[{ name: "x", script: process.execPath }]')
  await assert.rejects(resolveStart({ target: file, env }), { code: 'XPM_ERR_CONFIG_LOAD', message: /is not valid JSON, JSON5 or a JavaScript expression/ })
})

test('a .json file that contains JavaScript statements is rejected and never executed', async () => {
  const marker = path.join(tempDir('xpm-json-'), 'executed')
  process.env.XPM_JSON_MARKER = marker
  try {
    await assert.rejects(resolveStart({ target: fixture('ecosystem-with-js.json'), env }), (err) => {
      assert.equal(err.code, 'XPM_ERR_CONFIG_LOAD')
      assert.equal(err.exitCode, 2)
      assert.match(err.message, /is not valid JSON, JSON5 or a JavaScript expression/)
      return true
    })
    assert.equal(fs.existsSync(marker), false, 'the .json file must not have been evaluated')
  } finally {
    delete process.env.XPM_JSON_MARKER
  }
})

test('a changed .js and .mjs file is read again in the same process', async () => {
  const dir = tempDir('xpm-fresh-')
  fs.writeFileSync(path.join(dir, 'app.js'), '')
  for (const [file, write] of [
    ['ecosystem.config.js', (n) => `module.exports = { apps: [{ name: '${n}', script: 'app.js' }] }`],
    ['ecosystem.config.mjs', (n) => `export default { apps: [{ name: '${n}', script: 'app.js' }] }`]
  ]) {
    fs.writeFileSync(path.join(dir, file), write('first'))
    assert.equal((await loadEcosystem(path.join(dir, file))).apps[0].name, 'first')
    fs.writeFileSync(path.join(dir, file), write('second'))
    assert.equal((await loadEcosystem(path.join(dir, file))).apps[0].name, 'second')
  }
})

test('a .js ecosystem in a "type": "module" package is imported as ESM', async () => {
  const dir = tempDir('xpm-esm-')
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }')
  fs.writeFileSync(path.join(dir, 'app.js'), '')
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), "export default { apps: [{ name: 'esm', script: 'app.js' }] }")
  assert.equal((await loadEcosystem(path.join(dir, 'ecosystem.config.js'))).apps[0].name, 'esm')
})

test('YAML ecosystem files (process.yml) are read as PM2 reads them: apps, env_<name>, anchors', async () => {
  const dir = tempDir('xpm-yaml-')
  fs.writeFileSync(path.join(dir, 'app.js'), '')
  fs.writeFileSync(path.join(dir, 'process.yml'), [
    'apps:',
    '  - script: ./app.js',
    '    name: api',
    '    instances: 2',
    '    env: &env',
    '      NODE_ENV: development',
    '    env_production:',
    '      NODE_ENV: production',
    '  - name: worker',
    '    script: app.js',
    '    args: --queue jobs',
    '    env: *env',
    ''
  ].join('\n'))
  const { apps } = await loadEcosystem(path.join(dir, 'process.yml'))
  assert.deepEqual(apps.map((a) => [a.name, a.env.NODE_ENV]), [['api', 'development'], ['worker', 'development']])
  const resolved = await resolveStart({ target: path.join(dir, 'process.yml'), env, envName: 'production' })
  assert.deepEqual(resolved.specs.map((s) => [s.name, s.instances, s.env.NODE_ENV]), [['api', 2, 'production'], ['worker', 1, 'development']])
  assert.deepEqual(resolved.specs[1].args, ['--queue', 'jobs'])
  fs.writeFileSync(path.join(dir, 'one.yaml'), 'name: solo\nscript: app.js\n')
  assert.equal((await loadEcosystem(path.join(dir, 'one.yaml'))).apps[0].name, 'solo')
})

test('bad shapes and missing files are XPM_ERR_CONFIG_LOAD or UNKNOWN_KEY, one line each', async () => {
  const dir = tempDir('xpm-shape-')
  const write = (name, text) => { fs.writeFileSync(path.join(dir, name), text); return path.join(dir, name) }
  const cases = [
    [write('a.json', '{ "apps": [] }'), 'XPM_ERR_CONFIG_LOAD', /has no apps/],
    [write('b.json', '{ "app": [] }'), 'XPM_ERR_CONFIG_UNKNOWN_KEY', /unknown top-level key "app" .* did you mean "apps"\?/],
    [write('c.json', '"apps"'), 'XPM_ERR_CONFIG_LOAD', /must export \{ apps: \[\.\.\.\] \}/],
    [write('d.config.js', 'throw new Error("boom")'), 'XPM_ERR_CONFIG_LOAD', /failed to load: boom/],
    [write('e.yml', 'apps: []'), 'XPM_ERR_CONFIG_LOAD', /has no apps/],
    [write('e2.yaml', 'apps:\n  - name: a\n   script: x\n'), 'XPM_ERR_CONFIG_LOAD', /is not valid YAML: .*line 3/],
    [write('f.json', '{ "apps": ["app.js"] }'), 'XPM_ERR_CONFIG_INVALID', /Expected app #1 .* to be an object of options, got "app.js"/],
    [path.join(dir, 'ecosystem.missing.json'), 'XPM_ERR_CONFIG_LOAD', /does not exist/]
  ]
  for (const [file, code, message] of cases) {
    await assert.rejects(resolveStart({ target: file, env }), (err) => {
      assert.equal(err.code, code, file)
      assert.match(err.message, message)
      assert.doesNotMatch(err.message, /\n/)
      return true
    })
  }
})

test('--env production reads deploy.production.env under the app\'s env and env_production, as PM2', async () => {
  const dir = tempDir('xpm-deploy-env-')
  fs.writeFileSync(path.join(dir, 'env.js'), '')
  fs.writeFileSync(path.join(dir, 'env-ecosystem.json'), JSON.stringify({
    apps: [{ name: 'env2', script: './env.js', env: { NODE_ENV: 'production', SHARED: 'app' } }],
    deploy: { production: { user: 'node', host: '212.83.163.1', ref: 'origin/master', repo: 'git@github.com:repo.git', path: '/var/www/production', env: { TEST_VARIABLE: 'No worries!', SHARED: 'deploy' } } }
  }))
  const [spec] = (await resolveStart({ target: path.join(dir, 'env-ecosystem.json'), env, envName: 'production' })).specs
  assert.deepEqual([spec.env.TEST_VARIABLE, spec.env.SHARED, spec.env.NODE_ENV], ['No worries!', 'app', 'production'])
  const [plain] = (await resolveStart({ target: path.join(dir, 'env-ecosystem.json'), env })).specs
  assert.equal(plain.env.TEST_VARIABLE, undefined, 'only with --env')
  await assert.rejects(resolveStart({ target: path.join(dir, 'env-ecosystem.json'), env, envName: 'staging' }), { code: 'XPM_ERR_BAD_ARGUMENT' })
})

// Issue 34 §4: nothing an expression .json file does outlives the time limit
test('a .json expression whose promise callback never ends fails in time instead of hanging the CLI', async () => {
  const dir = tempDir('xpm-jsloop-')
  fs.writeFileSync(path.join(dir, 'echo.js'), '')
  const file = path.join(dir, 'loop.json')
  fs.writeFileSync(file, '(Promise.resolve().then(() => { while (true) {} }), [{ name: "echo", script: "./echo.js" }])\n')
  // in a child: on the old code the loop runs in the loader's own process, for ever
  const code = `require(${JSON.stringify(path.join(__dirname, '..', '..', 'lib', 'shared', 'config'))}).resolveStart({ target: ${JSON.stringify(file)} })
    .then(() => console.log('loaded'), (err) => console.log(err.code + ' ' + err.message))`
  const t0 = Date.now()
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 20000, killSignal: 'SIGKILL' })
  assert.notEqual(r.signal, 'SIGKILL', `the loader hung (${Date.now() - t0} ms)`)
  assert.match(r.stdout, /^XPM_ERR_CONFIG_LOAD .*did not finish within 1000 ms/)
})

test('uid and gid names the files do not hold come from the real getent', () => {
  const { resolveUser } = require('../../lib/shared/config/users')
  const empty = path.join(tempDir(), 'empty')
  fs.writeFileSync(empty, '')
  assert.deepEqual(resolveUser({ uid: 'root', gid: 'root' }, { passwd: empty, group: empty }), { uid: 0, gid: 0 })
})
