'use strict'

// The OTLP/gRPC side of the test receiver (otlp-receiver.js): the collector's three Export
// services (opentelemetry-proto's collector/{trace,metrics,logs}/v1) on @grpc/grpc-js, each
// request's bytes decoded by the receiver's own protobuf messages. Answers as the receiver's
// status says: OK with an empty response, UNAVAILABLE for a refusing collector, nothing for
// 'hang'. → { url, close() }.
const SERVICES = {
  traces: 'opentelemetry.proto.collector.trace.v1.TraceService',
  metrics: 'opentelemetry.proto.collector.metrics.v1.MetricsService',
  logs: 'opentelemetry.proto.collector.logs.v1.LogsService'
}
const same = (b) => b

// onRequest(signal, bytes, metadata) is called for each accepted request; status() is the code
// the receiver answers with now (200, another HTTP code, or 'hang').
async function startGrpcReceiver ({ onRequest, status }) {
  const grpc = require('@grpc/grpc-js')
  const server = new grpc.Server()
  for (const [signal, service] of Object.entries(SERVICES)) {
    const definition = {
      Export: { path: `/${service}/Export`, requestStream: false, responseStream: false, requestSerialize: same, requestDeserialize: same, responseSerialize: () => Buffer.alloc(0), responseDeserialize: same }
    }
    server.addService(definition, {
      Export: (call, callback) => {
        const code = status()
        if (code === 'hang') return
        if (code !== 200) return callback({ code: grpc.status.UNAVAILABLE, details: `the test receiver answers ${code}` })
        try {
          onRequest(signal, call.request, call.metadata.getMap())
          callback(null, Buffer.alloc(0))
        } catch (err) {
          callback({ code: grpc.status.INVALID_ARGUMENT, details: err.message })
        }
      }
    })
  }
  const port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => err ? reject(err) : resolve(p)))
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => { server.forceShutdown() }
  }
}

module.exports = { startGrpcReceiver }
