'use strict'

// The daemon's OTLP exporters (daemon/otel/exporters.js): chosen by protocol, every outcome
// counted (sent, dropped, the last result), against a real local receiver and a closed port.
const test = require('node:test')
const assert = require('node:assert/strict')
const { startReceiver } = require('../helpers/otlp-receiver')
const { freePort } = require('../helpers/wait')

const missing = (() => { try { require.resolve('@opentelemetry/exporter-logs-otlp-http'); return false } catch { return 'the OpenTelemetry optional dependencies are not installed' } })()

const exportOnce = (exporter, items) => new Promise((resolve) => exporter.export(items, resolve))

function logRecord () {
  const { LoggerProvider, InMemoryLogRecordExporter, SimpleLogRecordProcessor } = require('@opentelemetry/sdk-logs')
  const memory = new InMemoryLogRecordExporter()
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] })
  provider.getLogger('t').emit({ body: 'a line', severityNumber: 9 })
  return memory.getFinishedLogRecords()
}

test('every protocol makes an exporter; a sent batch and a refused one are counted', { skip: missing }, async () => {
  const { createExporter } = require('../../daemon/otel/exporters')
  for (const signal of ['metrics', 'logs']) {
    for (const protocol of ['http/json', 'http/protobuf', 'grpc']) {
      const made = createExporter(signal, { url: `http://127.0.0.1:9/v1/${signal}`, protocol, headers: {} })
      assert.equal(made.protocol, protocol)
      assert.equal(typeof made.exporter.export, 'function')
      await made.exporter.shutdown()
    }
  }
  const receiver = await startReceiver()
  try {
    const ok = createExporter('logs', { url: `${receiver.url}/v1/logs`, protocol: 'http/json', headers: { 'x-tenant': 'acme' } })
    const records = logRecord()
    assert.equal((await exportOnce(ok.exporter, records)).code, 0)
    assert.deepEqual([ok.stats.exported, ok.stats.dropped, ok.stats.lastExport.ok], [1, 0, true])
    assert.equal(receiver.records()[0].body, 'a line')
    assert.equal(receiver.received[0].headers['x-tenant'], 'acme')
    await ok.exporter.shutdown()

    const closed = createExporter('logs', { url: `http://127.0.0.1:${await freePort()}/v1/logs`, protocol: 'http/json', headers: {} })
    assert.notEqual((await exportOnce(closed.exporter, records)).code, 0)
    assert.deepEqual([closed.stats.exported, closed.stats.dropped, closed.stats.failedExports, closed.stats.lastExport.ok], [0, 1, 1, false])
    assert.match(closed.stats.lastExport.error, /\S/)
    await closed.exporter.shutdown()
  } finally {
    await receiver.close()
  }
})
