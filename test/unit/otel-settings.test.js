'use strict'

// The `otel` option's forms, where each signal goes (the option, then the app's OTEL_*, then the
// daemon's), the variables an app gets, and a log line's record: pure, no process.
const test = require('node:test')
const assert = require('node:assert/strict')
const { parseOtel, isOtel } = require('../../lib/shared/config/otel-type')
const { destination, appOtelEnv, otelVariables } = require('../../lib/shared/otel/settings')
const { logRecordOf } = require('../../lib/shared/otel/log-record')
const { resolveStart } = require('../../lib/shared/config')
const FIXTURES = require('node:path').join(__dirname, '..', 'fixtures', 'ecosystems')

test('otel: true, false, an endpoint, or an object; anything else is refused', () => {
  assert.deepEqual(parseOtel(true), { traces: true, metrics: true, logs: true, endpoint: null, protocol: null, headers: null, sampler: null })
  assert.deepEqual(parseOtel(false), { off: true })
  assert.equal(parseOtel('http://collector:4318').endpoint, 'http://collector:4318')
  const full = parseOtel({ traces: true, metrics: false, logs: true, protocol: 'http/json', headers: 'authorization=Basic%20abc,x-tenant=a', sampler: 0.25 })
  assert.deepEqual(full.headers, { authorization: 'Basic abc', 'x-tenant': 'a' })
  assert.deepEqual(full.sampler, { sampler: 'parentbased_traceidratio', arg: '0.25' })
  assert.ok(isOtel(full))
  assert.deepEqual(parseOtel({ sampler: 'always_off' }).sampler, { sampler: 'always_off', arg: null })
  assert.deepEqual(parseOtel({ traces: false, metrics: false, logs: false }), { off: true })
  for (const bad of ['yes', 'ftp://x', { protocol: 'udp' }, { tracez: true }, { sampler: 2 }, { sampler: 'sometimes' }, { headers: 'novalue' }, { headers: { 'bad name': 'x' } }, { traces: 'yes' }, 1]) {
    assert.equal(parseOtel(bad), null, JSON.stringify(bad))
  }
})

test('an ecosystem file\'s otel reaches the spec; a typo is refused with the expected forms', async () => {
  const [spec] = (await resolveStart({ target: 'app.js', flags: { otel: 'http://c:4318' }, cwd: FIXTURES, env: {} })).specs
  assert.equal(spec.otel.endpoint, 'http://c:4318')
  const [off] = (await resolveStart({ target: 'app.js', flags: {}, cwd: FIXTURES, env: {} })).specs
  assert.equal(off.otel, null)
  await assert.rejects(resolveStart({ target: 'app.js', flags: { otel: 'nope' }, cwd: FIXTURES, env: {} }), /otel/)
})

test('where metrics and logs go: the option, then the app\'s OTEL_*, then the daemon\'s; signal variables first', () => {
  const otel = parseOtel(true)
  const daemon = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://daemon:4318', OTEL_EXPORTER_OTLP_HEADERS: 'a=1' }
  assert.deepEqual(destination(otel, {}, {}, 'metrics'), { url: 'http://localhost:4318/v1/metrics', protocol: 'http/protobuf', headers: {}, intervalMs: 60000, disabled: false })
  assert.equal(destination(otel, {}, daemon, 'logs').url, 'http://daemon:4318/v1/logs')
  assert.equal(destination(otel, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://app:4318/' }, daemon, 'logs').url, 'http://app:4318/v1/logs')
  assert.equal(destination(otel, { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://logs:9/x' }, daemon, 'logs').url, 'http://logs:9/x')
  assert.equal(destination(parseOtel({ endpoint: 'http://own:1' }), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://app:4318' }, daemon, 'metrics').url, 'http://own:1/v1/metrics')
  assert.deepEqual(destination(parseOtel({ headers: { b: '2' } }), {}, daemon, 'metrics').headers, { a: '1', b: '2' })
  assert.equal(destination(otel, { OTEL_METRIC_EXPORT_INTERVAL: '5000', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, {}, 'metrics').intervalMs, 5000)
  assert.equal(destination(otel, {}, { OTEL_SDK_DISABLED: 'true' }, 'metrics').disabled, true)
  // gRPC takes the endpoint as it is: the service, not a path, names the signal
  assert.equal(destination(parseOtel({ endpoint: 'http://c:4317', protocol: 'grpc' }), {}, {}, 'logs').url, 'http://c:4317')
  assert.equal(destination(otel, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, {}, 'metrics').url, 'http://c:4317')
  assert.equal(appOtelEnv(parseOtel({ endpoint: 'http://c:4317', protocol: 'grpc' }), {}, {}, { id: 0, name: 'a', index: 0 }).OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'http://c:4317')
  assert.deepEqual(otelVariables({ OTEL_A: '1', PATH: '/bin' }), { OTEL_A: '1' })
})

test('the app\'s variables: the daemon\'s OTEL_* it lacks, the option\'s settings, its ids', () => {
  const ids = { id: 4, name: 'api', index: 1, namespace: 'shop', restarts: 2 }
  const env = appOtelEnv(parseOtel({ endpoint: 'http://c:4318', sampler: 'traceidratio:0.5', headers: { k: 'v w' } }), { OTEL_SERVICE_NAME: 'mine' }, { OTEL_SERVICE_NAME: 'daemon', OTEL_RESOURCE_ATTRIBUTES: 'team=x' }, ids)
  assert.equal(env.OTEL_SERVICE_NAME, undefined, 'the app\'s own value stays')
  assert.equal(env.OTEL_RESOURCE_ATTRIBUTES, 'team=x')
  assert.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://c:4318')
  assert.equal(env.OTEL_TRACES_SAMPLER, 'traceidratio')
  assert.equal(env.OTEL_TRACES_SAMPLER_ARG, '0.5')
  assert.equal(env.OTEL_EXPORTER_OTLP_HEADERS, 'k=v%20w')
  assert.equal(env.OTEL_METRICS_EXPORTER, undefined, 'nothing that would follow a CLI run inside the app into other apps')
  assert.deepEqual(JSON.parse(env.XPM_OTEL), { app: 'api', id: 4, instance: 1, namespace: 'shop', restarts: 2 })
  assert.deepEqual(appOtelEnv(parseOtel({ traces: false }), {}, {}, ids), {}, 'no traces: no SDK in the app')
})

test('a log line\'s record: severity from the stream or the JSON level, trace context from the line', () => {
  assert.deepEqual(logRecordOf('plain', 'out'), { severityNumber: 9, severityText: 'INFO', body: 'plain', traceId: null, spanId: null, traceFlags: null })
  assert.equal(logRecordOf('oops', 'err').severityText, 'ERROR')
  assert.equal(logRecordOf('{"level":50,"msg":"x"}', 'out').severityText, 'ERROR')
  assert.equal(logRecordOf('{"level":40}', 'out').severityNumber, 13)
  assert.equal(logRecordOf('{"level":"warning"}', 'out').severityText, 'WARN')
  assert.equal(logRecordOf('{"level":"nonsense"}', 'err').severityText, 'ERROR')
  const r = logRecordOf('{"level":30,"trace_id":"8D601293F147AE631467A4D08C104CD2","span_id":"896248674d9c3378","trace_flags":"01"}', 'out')
  assert.deepEqual([r.traceId, r.spanId, r.traceFlags], ['8d601293f147ae631467a4d08c104cd2', '896248674d9c3378', 1])
  assert.equal(logRecordOf('{"trace_id":"00000000000000000000000000000000","span_id":"896248674d9c3378"}', 'out').traceId, null)
  assert.equal(logRecordOf('{"trace_id":"xyz","span_id":"1"}', 'out').traceId, null)
  assert.equal(logRecordOf('{not json', 'out').severityText, 'INFO')
})

test('`xpm start --otel` and `--otel <endpoint>` parse into the spec', async () => {
  const { Command } = require('commander')
  const { addStartOptions } = require('../../lib/cli/start-options')
  const flags = async (argv) => {
    const command = new Command('start').argument('<target>').allowExcessArguments(true).exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} })
    addStartOptions(command)
    command.parse(argv, { from: 'user' })
    return (await resolveStart({ target: 'app.js', flags: command.opts(), cwd: FIXTURES, env: {} })).specs[0].otel
  }
  assert.deepEqual(await flags(['app.js', '--otel']), parseOtel(true))
  assert.equal((await flags(['app.js', '--otel', 'http://c:4318'])).endpoint, 'http://c:4318')
  assert.equal(await flags(['app.js']), null)
})
