'use strict'

const http = require('node:http')
const zlib = require('node:zlib')

// An OTLP/HTTP receiver for the tests: POST /v1/traces, /v1/metrics, /v1/logs, decoded from
// http/json as is, and from http/protobuf with protobufjs and the OTLP messages below (the part
// of opentelemetry-proto the tests read, for traces, logs and metrics; unknown fields are
// skipped, as protobuf does). Every
// request becomes { signal, contentType, body } in `received`, newest last. status(code) makes
// it answer that code from then on (a collector that refuses), status('hang') answer nothing (a
// collector that stalls); close() ends it. With { grpc: true } it serves OTLP/gRPC too, at
// grpcUrl (otlp-grpc.js): its requests land in `received` with contentType 'application/grpc'.
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
message LogRecord { fixed64 time_unix_nano = 1; int32 severity_number = 2; string severity_text = 3; AnyValue body = 5; repeated KeyValue attributes = 6; fixed32 flags = 8; bytes trace_id = 9; bytes span_id = 10; fixed64 observed_time_unix_nano = 11; }
message ScopeLogs { Scope scope = 1; repeated LogRecord log_records = 2; }
message ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; }
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message NumberDataPoint { fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; oneof value { double as_double = 4; sfixed64 as_int = 6; } repeated KeyValue attributes = 7; }
message HistogramDataPoint { fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; fixed64 count = 4; double sum = 5; repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7; repeated KeyValue attributes = 9; }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message Metric { string name = 1; string description = 2; string unit = 3; oneof data { Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; } }
message ScopeMetrics { Scope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`
const REQUESTS = { traces: 'otlp.ExportTraceServiceRequest', logs: 'otlp.ExportLogsServiceRequest', metrics: 'otlp.ExportMetricsServiceRequest' }

let root = null
function requestType (signal) {
  if (!root) root = require('protobufjs').parse(PROTO, { keepCase: false }).root
  return root.lookupType(REQUESTS[signal])
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
  const type = requestType(signal)
  return type.toObject(type.decode(buf), { longs: String, bytes: Buffer, defaults: false, oneofs: false })
}

async function startReceiver ({ port = 0, grpc = false } = {}) {
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
  const onGrpc = (signal, buf, headers) => received.push({ signal, contentType: 'application/grpc', headers, body: decode(signal, 'application/grpc', buf) })
  const grpcServer = grpc ? await require('./otlp-grpc').startGrpcReceiver({ onRequest: onGrpc, status: () => code }) : null
  const of = (signal) => received.filter((r) => r.signal === signal)
  return {
    port: server.address().port,
    url: `http://127.0.0.1:${server.address().port}`,
    grpcUrl: grpcServer?.url ?? null,
    received,
    errors,
    spans: () => of('traces').flatMap((r) => spansOf(r.body)),
    points: () => of('metrics').flatMap((r) => pointsOf(r.body)),
    records: () => of('logs').flatMap((r) => recordsOf(r.body)),
    status: (c) => { code = c },
    close: () => Promise.all([grpcServer?.close(), new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()) })])
  }
}

module.exports = { startReceiver, spansOf, pointsOf, recordsOf }
