'use strict'

// The PM2 corpus (test/fixtures/ecosystems/pm2-corpus): ecosystem files in every style PM2
// documents, through the config model. Each one gives specs the daemon accepts, or is refused
// for a reason a PM2 user would agree with (a missing script, a real typo). A handful of them
// start for real in test/integration/pm2-ecosystem.test.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { resolveStart, checkSpec, validateSpec, loadEcosystem } = require('../../lib/shared/config')
const { findOption, OPTIONS, FILE_KEYS } = require('../../lib/shared/config/options')
const { renderPm2Table } = require('../../lib/shared/config/render-docs')

const CORPUS = path.join(__dirname, '..', 'fixtures', 'ecosystems', 'pm2-corpus')
const SCHEMA = require(path.join(CORPUS, 'pm2-schema-keys.json'))
const env = { PATH: `${path.join(CORPUS, 'bin')}${path.delimiter}${process.env.PATH}`, HOME: '/nonexistent', npm_config_x: '1', AWS_KEY: 'k', KEEP: 'yes' }

// file → the apps it gives (and how many notices), or the error it is refused with.
const EXPECTED = {
  'ecosystem.config.js': { apps: ['app1', 'worker'] },
  'ecosystem.config.cjs': { apps: ['api', 'web'] },
  'ecosystem.config.mjs': { apps: ['esm-app'] },
  'process.json': { apps: ['single'] },
  'pm2-section.json': { apps: ['legacy-a', 'legacy-b'] },
  'apps-object.json': { apps: ['only-one'] },
  'camel-case.json': { apps: ['camel'] },
  'npm-start.config.js': { apps: ['npm-app', 'npm-run'] },
  'next.config.js': { apps: ['next', 'next-cmd', 'node-cmd'] },
  'interpreters.config.js': { apps: ['py', 'py-explicit', 'shell'] },
  'every-key.config.js': { apps: ['corp:every', 'aliases', 'cmd-alias', 'command-alias'], notices: ['install_url', 'vizion', 'post_update', 'pmx', 'username', 'write', 'io', 'watch_options'] },
  'typo.config.js': { code: 'XPM_ERR_CONFIG_UNKNOWN_KEY', message: /^3 problems in .*\n {2}- unknown option "instnces" in app "api" — did you mean "instances"\?\n {2}- unknown option "max_memory_restrat" in app "api" — did you mean "max_memory_restart"\?\n {2}- unknown option "exec_mod" in app "worker" — did you mean "exec_mode"\?$/ },
  'missing-script.json': { code: 'XPM_ERR_SCRIPT_NOT_FOUND', message: /script "does-not-exist\.js" in app "ghost" not found/ },
  'top-level-typo.json': { code: 'XPM_ERR_CONFIG_UNKNOWN_KEY', message: /unknown top-level key "app" .* did you mean "apps"\?/ }
}

const corpusFiles = () => fs.readdirSync(CORPUS).filter((f) => /\.(c|m)?js$|\.json$/.test(f) && f !== 'app.js' && f !== 'pm2-schema-keys.json')

test('every file of the corpus starts, or is refused for a reason a PM2 user agrees with', async () => {
  assert.deepEqual(corpusFiles().sort(), Object.keys(EXPECTED).sort(), 'every corpus file has an expectation')
  for (const [file, expected] of Object.entries(EXPECTED)) {
    const run = resolveStart({ target: path.join(CORPUS, file), env })
    if (expected.code) {
      await assert.rejects(run, (err) => {
        assert.equal(err.code, expected.code, file)
        assert.equal(err.exitCode, 2, file)
        assert.match(err.message, expected.message, file)
        return true
      })
      continue
    }
    const { specs, notices } = await run
    assert.deepEqual(specs.map((s) => s.name), expected.apps, file)
    for (const spec of specs) {
      const wire = JSON.parse(JSON.stringify(spec))
      assert.deepEqual(checkSpec(wire), [], `${file}: ${spec.name}`)
      assert.equal(validateSpec(wire), wire)
    }
    assert.deepEqual(notices.map((n) => /^`([^`]+)`/.exec(n)[1]), expected.notices ?? [], file)
  }
})

test('every key of PM2\'s schema, and every alias, is known, used in the corpus, and in the migration guide', async () => {
  const used = new Set()
  for (const file of Object.keys(EXPECTED).filter((f) => !EXPECTED[f].code)) {
    for (const raw of (await loadEcosystem(path.join(CORPUS, file))).apps) for (const key of Object.keys(raw)) used.add(key)
  }
  const table = renderPm2Table()
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migrating-from-pm2.md'), 'utf8')
  assert.ok(doc.includes(table), 'run `node lib/shared/config/render-docs.js --write` after changing options.js')
  for (const key of [...SCHEMA.keys, ...SCHEMA.aliases]) {
    const option = findOption(key)
    assert.ok(option, `${key} is known`)
    assert.ok(used.has(key), `${key} is used in the corpus`)
    // camelCase spellings (interpreterArgs) are in the row of their snake_case key
    const shown = option.pattern ? 'env_<name>' : [option.key, ...(option.aliases || [])].includes(key) ? key : option.key
    assert.ok(table.includes(`\`${shown}\``), `${key} has a row in the migration guide`)
  }
  for (const key of FILE_KEYS) assert.ok(table.includes(`top level: \`${key.key}\``))
  // an option xpm adds is never presented as PM2's
  for (const option of OPTIONS.filter((o) => /\(xpm\)$/.test(o.description))) assert.ok(!table.includes(`| \`${option.key}\``), option.key)
})

test('what the corpus asks for reaches the specs', async () => {
  const specs = async (file, opts = {}) => Object.fromEntries((await resolveStart({ target: path.join(CORPUS, file), env, ...opts })).specs.map((s) => [s.name, s]))

  const cjs = await specs('ecosystem.config.cjs')
  assert.deepEqual([cjs.api.execMode, cjs.api.instances, cjs.api.instanceVar, cjs.api.incrementVar, cjs.api.env.PORT], ['cluster', 3, 'INSTANCE_ID', 'PORT', '4000'])
  assert.deepEqual([cjs.api.logs.perInstance, cjs.api.logs.dateFormat, cjs.api.logs.time], [false, 'YYYY-MM-DD HH:mm Z', true])
  assert.deepEqual([cjs.web.env.PORT, cjs.web.namespace, cjs.web.killTimeout, cjs.web.listenTimeout], ['8080', 'frontend', 3000, 10000])

  const mjs = await specs('ecosystem.config.mjs')
  assert.equal(mjs['esm-app'].env.FEATURES, '{"search":true,"beta":false}', 'an object as an env value is its JSON text')

  const single = (await specs('process.json')).single
  assert.deepEqual([single.args, single.nodeArgs, single.cwd], [['--color', '--port', '3000'], ['--max-old-space-size=128'], CORPUS])

  const legacy = await specs('pm2-section.json')
  assert.deepEqual([legacy['legacy-a'].logs.outFile, legacy['legacy-a'].logs.errorFile], ['/dev/null', '/dev/null'])
  assert.deepEqual([legacy['legacy-b'].logs.dateFormat, legacy['legacy-b'].logs.logFile], [null, null])

  const camel = (await specs('camel-case.json')).camel
  assert.deepEqual([camel.ignoreWatch, camel.maxMemoryRestart, camel.killTimeout, camel.minUptime, camel.maxRestarts, camel.instanceVar, camel.nodeArgs],
    [['node_modules'], 300 * 1024 * 1024, 4000, 5000, 5, 'INSTANCE', ['--trace-warnings']])
  assert.equal(camel.logs.outFile, path.join(CORPUS, 'logs', 'camel-out.log'))

  const every = await specs('every-key.config.js', { envName: 'production' })
  const e = every['corp:every-production']
  assert.ok(e, 'name_prefix, then append_env_to_name with --env production')
  assert.deepEqual([e.namespace, e.env.NODE_ENV, e.env.PORT, e.env.SETTINGS], ['all-keys', 'production', '5000', '{"retries":3}'])
  assert.equal(e.env.npm_config_x, undefined, 'filter_env leaves out the CLI variables with those prefixes')
  assert.equal(e.env.AWS_KEY, undefined)
  assert.equal(e.env.KEEP, 'yes')
  assert.deepEqual([e.sourceMapSupport, e.pidFile, e.treekill, e.killRetryTime, e.uid, e.gid], [true, path.join(CORPUS, 'every.pid'), true, 100, process.getuid(), process.getgid()])
  assert.deepEqual(e.ignoreWatch, ['node_modules', '\\.git', 'tmp'], 'watch_options.ignored adds to ignore_watch')
  assert.equal(every.aliases.logs.perInstance, true, 'combine_logs: false')
  assert.equal(every.aliases.cronRestart, '30 4 * * *')
  assert.equal(every.aliases.pidFile, path.join(CORPUS, 'aliases.pid'))
  assert.equal(every['command-alias'].logs.errorFile, path.join(CORPUS, 'logs', 'c-error.log'), 'the alias given last wins')
})

test('scripts as PM2 runs them: PATH, node shebangs in cluster mode, command lines, interpreters by extension', async () => {
  const specs = async (file) => Object.fromEntries((await resolveStart({ target: path.join(CORPUS, file), env })).specs.map((s) => [s.name, s]))
  const next = await specs('next.config.js')
  assert.deepEqual([next.next.script, next.next.interpreter, next.next.execMode, next.next.args], [path.join(CORPUS, 'bin', 'fake-next'), 'node', 'cluster', ['start']])
  assert.deepEqual([next['next-cmd'].script, next['next-cmd'].interpreter, next['next-cmd'].args], [path.join(CORPUS, 'bin', 'fake-next'), 'node', ['start', '-p', '3001']])
  assert.deepEqual([next['node-cmd'].script, next['node-cmd'].interpreter, next['node-cmd'].nodeArgs, next['node-cmd'].args],
    [path.join(CORPUS, 'app.js'), 'node', ['--max-old-space-size=96'], ['--verbose']])

  const npm = await specs('npm-start.config.js')
  assert.equal(npm['npm-app'].interpreter, 'node', 'npm\'s first line names node')
  assert.equal(npm['npm-app'].execMode, 'cluster')
  assert.deepEqual(npm['npm-run'].args, ['run', 'start'])
  assert.equal(npm['npm-run'].script, npm['npm-app'].script)

  const interp = await specs('interpreters.config.js')
  assert.match(interp.py.interpreter, /^python3?$/)
  assert.deepEqual([interp['py-explicit'].interpreter, interp['py-explicit'].nodeArgs], ['python3', ['-u']])
  assert.deepEqual([interp.shell.interpreter, interp.shell.args, path.basename(interp.shell.script)], ['none', ['300'], 'sleep'])
})
