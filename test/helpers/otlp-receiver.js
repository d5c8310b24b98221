'use strict'

const http = require('node:http')
const zlib = require('node:zlib')

// An OTLP/HTTP receiver for the tests: POST /v1/traces, /v1/metrics, /v1/logs, decoded from
// http/json as is, and from http/protobuf with protobufjs and the OTLP messages below (the part
// of opentelemetry-proto the tests read; unknown fields are skipped, as protobuf does). Every
// request becomes { signal, contentType, body } in `received`, newest last. status(code) makes
// it answer that code from then on (a collector that refuses), status('hang') answer nothing (a
// collector that stalls); close() ends it.
const PROTO = `
syntax = "proto3";
package otlp;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Scope { string name = 1; string version = 2; }
message Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`

let root = null
function traceRequest () {
  if (!root) root = require('protobufjs').parse(PROTO, { keepCase: false }).root
  return root.lookupType('otlp.ExportTraceServiceRequest')
}

// AnyValue → a plain value.
function plain (v) {
  if (!v) return null
  if (v.stringValue !== undefined) return v.stringValue
  if (v.intValue !== undefined) return Number(v.intValue)
  if (v.doubleValue !== undefined) return v.doubleValue
  if (v.boolValue !== undefined) return v.boolValue
  if (v.arrayValue) return (v.arrayValue.values || []).map(plain)
  return null
}

function attributes (list) {
  return Object.fromEntries((list || []).map((kv) => [kv.key, plain(kv.value)]))
}

// Protobuf bytes → hex, JSON's hex strings stay as they are.
const hex = (v) => typeof v === 'string' ? v.toLowerCase() : v ? Buffer.from(v).toString('hex') : ''

// Every span of a traces body: { traceId, spanId, parentSpanId, name, kind, attributes, resource }.
function spansOf (body) {
  const out = []
  for (const rs of body.resourceSpans || []) {
    const resource = attributes(rs.resource?.attributes)
    for (const ss of rs.scopeSpans || []) {
      for (const s of ss.spans || []) out.push({ traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), name: s.name, kind: s.kind, attributes: attributes(s.attributes), resource })
    }
  }
  return out
}

// Every data point of a metrics body (http/json): { name, value, attributes, resource }.
function pointsOf (body) {
  const out = []
  for (const rm of body.resourceMetrics || []) {
    const resource = attributes(rm.resource?.attributes)
    for (const sm of rm.scopeMetrics || []) {
      for (const m of sm.metrics || []) {
        const points = (m.gauge || m.sum || {}).dataPoints || []
        for (const p of points) out.push({ name: m.name, unit: m.unit, value: p.asDouble ?? Number(p.asInt), attributes: attributes(p.attributes), resource })
      }
    }
  }
  return out
}

// Every log record of a logs body (http/json): { body, severityNumber, severityText, traceId, spanId, attributes, resource }.
function recordsOf (body) {
  const out = []
  for (const rl of body.resourceLogs || []) {
    const resource = attributes(rl.resource?.attributes)
    for (const sl of rl.scopeLogs || []) {
      for (const r of sl.logRecords || []) out.push({ body: plain(r.body), severityNumber: r.severityNumber, severityText: r.severityText, traceId: hex(r.traceId), spanId: hex(r.spanId), attributes: attributes(r.attributes), resource })
    }
  }
  return out
}

function decode (signal, contentType, buf) {
  if (/json/.test(contentType)) return JSON.parse(buf.toString('utf8'))
  if (signal !== 'traces') throw new Error(`the test receiver decodes protobuf for traces only, got ${signal}`)
  return traceRequest().toObject(traceRequest().decode(buf), { longs: String, bytes: Buffer, defaults: false })
}

async function startReceiver ({ port = 0 } = {}) {
  const received = []
  const errors = []
  let code = 200
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const signal = (/^\/v1\/(traces|metrics|logs)$/.exec(req.url) || [])[1]
      if (!signal) { res.writeHead(404).end(); return }
      if (code === 'hang') return // a collector that takes the request and never answers
      if (code !== 200) { res.writeHead(code).end(); return }
      try {
        let buf = Buffer.concat(chunks)
        if (req.headers['content-encoding'] === 'gzip') buf = zlib.gunzipSync(buf)
        received.push({ signal, contentType: req.headers['content-type'], headers: req.headers, body: decode(signal, req.headers['content-type'] || '', buf) })
        res.writeHead(200, { 'content-type': req.headers['content-type'] || 'application/json' }).end(/json/.test(req.headers['content-type']) ? '{}' : '')
      } catch (err) {
        errors.push(err)
        res.writeHead(400).end()
      }
    })
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  const of = (signal) => received.filter((r) => r.signal === signal)
  return {
    port: server.address().port,
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    errors,
    spans: () => of('traces').flatMap((r) => spansOf(r.body)),
    points: () => of('metrics').flatMap((r) => pointsOf(r.body)),
    records: () => of('logs').flatMap((r) => recordsOf(r.body)),
    status: (c) => { code = c },
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()) })
  }
}

module.exports = { startReceiver, spansOf, pointsOf, recordsOf }
