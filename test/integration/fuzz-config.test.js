'use strict'

// Property-based: random ecosystem objects through the config model (lib/shared/config), and random
// specs through the daemon's check (validate-spec). Either a normalized spec that the daemon's
// check accepts (also after a trip through JSON, as over the socket), or an XpmError with a known
// code; never another exception. Seeded and time-boxed (test/helpers/fuzz.js).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { fc, fuzzOptions } = require('../helpers/fuzz')
const { normalizeApp, checkSpec, validateSpec } = require('../../lib/shared/config')
const { OPTIONS } = require('../../lib/shared/config/options')
const { XpmError, CODES } = require('../../lib/shared/errors')
const { MAX_INSTANCES } = require('../../lib/shared/config/limits')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ecosystems')
const env = { PATH: process.env.PATH, HOME: '/nonexistent' }

const junk = fc.oneof(
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2, maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, true, false, 0, -1, 1.5, NaN, Infinity, '', ' ', '\0', '-x', 1e21, 2 ** 31, [], {}) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) }
)
const num = fc.oneof(fc.integer({ min: -10, max: 2 ** 32 }), fc.double({ noNaN: false }), fc.constantFrom(0, 1, 2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER + 2))
const withUnit = (units) => fc.tuple(fc.oneof(fc.nat({ max: 100000 }), fc.double({ min: 0, max: 1e6, noNaN: true })), fc.constantFrom(...units, ''))
  .map(([n, u]) => `${n}${u}`)

// A value generator per option type: mostly plausible values, with junk mixed in.
const BY_TYPE = {
  name: fc.oneof(fc.constantFrom('api', 'web.1', 'all', '42', '-rf', 'a/b', 'x'.repeat(129), 'café', ' pad'), fc.string({ unit: 'binary', maxLength: 20 })),
  string: fc.oneof(fc.constantFrom('node', 'none', 'python3', 'YYYY-MM-DD', ''), fc.string({ maxLength: 10 })),
  path: fc.oneof(fc.constantFrom('app.js', './app.js', 'sub', 'sub/app.js', 'missing.js', '/nonexistent/x.js', '.', 'app.env', 'out.log'), fc.string({ maxLength: 8 })),
  boolean: fc.oneof(fc.boolean(), fc.constantFrom('true', 0, 1)),
  count: fc.oneof(fc.nat({ max: 2000 }), num, fc.constantFrom('3', '-1', '1e3')),
  duration: fc.oneof(num, withUnit(['ms', 's', 'm', 'h', 'd', 'y', 'S'])),
  bytes: fc.oneof(num, withUnit(['B', 'K', 'KB', 'M', 'MB', 'G', 'GB', 'T', 'k'])),
  args: fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null)), { maxLength: 4 })),
  list: fc.oneof(fc.string({ maxLength: 12 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 })),
  exitCodes: fc.oneof(fc.integer({ min: -5, max: 300 }), fc.array(fc.integer({ min: -5, max: 300 }), { maxLength: 4 }), fc.constantFrom('0,2', '1, x')),
  instances: fc.oneof(fc.integer({ min: -MAX_INSTANCES - 5, max: MAX_INSTANCES + 5 }), fc.constantFrom('max', 'maxx', '4', '-1', 1e9, 0)),
  execMode: fc.constantFrom('cluster', 'fork', 'cluster_mode', 'fork_mode', 'cluter', 1),
  logType: fc.constantFrom('raw', 'json', 'xml', true),
  signal: fc.oneof(fc.constantFrom('SIGINT', 'sigterm', 'usr2', 'SIGNOPE', 'SIG', 'KILL'), fc.string({ maxLength: 6 })),
  env: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.object({ maxDepth: 1 })), { maxKeys: 4 }),
  logFile: fc.oneof(fc.boolean(), fc.constantFrom('combined.log', '/tmp/xpm-fuzz.log', '')),
  watch: fc.oneof(fc.boolean(), fc.constantFrom('sub', '.', 'a,b'), fc.array(fc.constantFrom('sub', '/tmp', ''), { maxLength: 3 })),
  logPath: fc.oneof(fc.constantFrom('out.log', '/dev/null', 'NULL', false, '', 'sub'), fc.string({ maxLength: 8 })),
  envName: fc.oneof(fc.constantFrom('PORT', 'INSTANCE_ID', '1X', 'A-B', ''), fc.string({ maxLength: 6 })),
  dateFormat: fc.oneof(fc.constantFrom('YYYY-MM-DD HH:mm:ss', false, true, ''), fc.string({ maxLength: 6 })),
  filterEnv: fc.oneof(fc.boolean(), fc.constantFrom('NODE_', 'A,B', ''), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 })),
  userId: fc.oneof(fc.constantFrom('root', 'nobody', 'no-such-user-x', 0, 65534, -1, 2 ** 32), fc.string({ maxLength: 6 })),
  port: fc.oneof(fc.integer({ min: -1, max: 70000 }), fc.constantFrom('4000', 'x')),
  object: fc.oneof(fc.constantFrom({}, { ignored: 'tmp' }, { ignored: ['a', 1], usePolling: true }), fc.object({ maxDepth: 1 })),
  any: junk,
  probe: fc.oneof(fc.constantFrom('http:/healthz', 'tcp:3000', 'exec:true', { http: '/h', port: 8080 }, { tcp: 0 }, { exec: '' }, 'http:nope'), junk),
  otel: fc.oneof(fc.constantFrom(true, false, 'http://c:4318', 'nope', { endpoint: 'http://c:4318', protocol: 'http/json' }, { sampler: 0.5, headers: 'a=b' }, { traces: 'yes' }, { protocol: 'udp' }, { metrics: false, logs: false, traces: false }), junk),
  hooks: fc.oneof(fc.constantFrom('echo hi', ['a', 'b'], { crash: 'x', timeout: '5s' }, { 'crash,errored': ['x'] }, { nope: 'x' }, []), junk),
  cron: fc.oneof(fc.constantFrom('0 3 * * *', '*/5 * * * *', '0 0 30 2 *', '@daily', '* * * * * * *', 'every day', '61 * * * *', '1-2/0 * * * *'),
    fc.array(fc.constantFrom('*', '0', '5', '*/2', '1-3', 'L', '?', '#', 'MON', '99', ','), { minLength: 1, maxLength: 7 }).map((a) => a.join(' ')))
}

// env_file only ever names a few files: a random path could be a device that never ends.
const envFile = fc.constantFrom('app.env', 'missing.env', 'sub', 42)

const optionValue = (option) => fc.oneof({ weight: 4, arbitrary: option.key === 'env_file' ? envFile : BY_TYPE[option.type] }, { weight: 1, arbitrary: option.key === 'env_file' ? envFile : junk })

const keys = OPTIONS.filter((o) => !o.pattern).flatMap((o) => [o.key, ...(o.aliases || [])].map((key) => [key, o]))
const rawApp = fc.tuple(
  fc.subarray(keys, { maxLength: 10 }).chain((picked) => fc.tuple(...picked.map(([key, option]) => optionValue(option).map((v) => [key, v])))),
  fc.option(fc.tuple(fc.constantFrom('env_production', 'env_', 'flavour', 'killTimeout'), junk), { nil: null }),
  fc.constantFrom('app.js', 'app.js', 'sub/app.js', 'missing.js', 'sub')
).map(([pairs, extra, script]) => {
  const raw = { script, ...Object.fromEntries(pairs) }
  if (extra) raw[extra[0]] = extra[1]
  return raw
})

function expectXpmError (err) {
  if (!(err instanceof XpmError) || !CODES[err.code]) throw err
}

test('fuzz: random ecosystem objects give a spec the daemon accepts, or an XpmError with a known code', (t) => {
  let specs = 0
  let errors = 0
  fc.assert(fc.property(rawApp, fc.integer({ min: 1, max: 2048 }), (raw, cpus) => {
    let spec
    try {
      spec = normalizeApp(raw, { baseDir: FIXTURES, env, cpus })
    } catch (err) {
      expectXpmError(err)
      errors++
      return
    }
    specs++
    assert.deepEqual(checkSpec(spec), [], JSON.stringify(raw))
    const wire = JSON.parse(JSON.stringify(spec))
    assert.equal(validateSpec(wire), wire)
    assert.ok(spec.instances >= 1 && spec.instances <= MAX_INSTANCES)
  }), fuzzOptions(t))
  t.diagnostic(`${specs} specs, ${errors} refused`)
  assert.ok(specs > 0 && errors > 0, 'both outcomes were explored')
})

// A valid spec with a few fields replaced, as a hand-written client could send it.
const validSpec = normalizeApp({ name: 'base', script: 'app.js', instances: 2, cron_restart: '0 3 * * *', watch: true, log: true }, { baseDir: FIXTURES, env, cpus: 4 })
const specFields = [...Object.keys(validSpec), 'logs.rotate', 'logs.outFile', 'logs.rotate.size', 'logs.rotate.interval', 'logs.json']
const mutated = fc.array(fc.tuple(fc.constantFrom(...specFields), fc.oneof(junk, ...Object.values(BY_TYPE))), { maxLength: 4 }).map((changes) => {
  const spec = structuredClone(validSpec)
  for (const [field, value] of changes) {
    const keys = field.split('.')
    let target = spec
    for (const key of keys.slice(0, -1)) target = target?.[key]
    if (target && typeof target === 'object') target[keys.at(-1)] = value
  }
  return spec
})

test('fuzz: the daemon\'s spec check refuses with XPM_ERR_CONFIG_INVALID or accepts a spec within the limits', (t) => {
  let accepted = 0
  fc.assert(fc.property(fc.oneof({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: fc.anything() }), (spec) => {
    let problems
    try {
      problems = checkSpec(spec)
    } catch (err) {
      assert.fail(`checkSpec threw ${err.stack}`)
    }
    if (problems.length) {
      assert.throws(() => validateSpec(spec), (err) => err instanceof XpmError && err.code === 'XPM_ERR_CONFIG_INVALID')
      return
    }
    accepted++
    assert.equal(validateSpec(spec), spec)
    assert.ok(Number.isSafeInteger(spec.instances) && spec.instances >= 1 && spec.instances <= MAX_INSTANCES)
    for (const option of OPTIONS.filter((o) => o.type === 'duration')) {
      const value = option.target.split('.').reduce((o, k) => o[k], spec)
      assert.ok(value === null || (Number.isSafeInteger(value) && value >= 0 && value <= 365 * 86_400_000), option.key)
    }
  }), fuzzOptions(t))
  t.diagnostic(`${accepted} accepted`)
  assert.ok(accepted > 0)
})
