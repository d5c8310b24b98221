'use strict'

// Preloaded (`--require`, before xpm's agent) into the Node processes of an app with `otel`
// traces on (daemon/launchers/agent-args.js): starts the official OpenTelemetry Node SDK with
// the auto-instrumentations, so the app's requests become traces with no code change. The SDK
// reads the standard OTEL_* variables (endpoint, protocol, headers, sampler, resource
// attributes, OTEL_SDK_DISABLED); the daemon set them from the app's `otel` settings and added
// XPM_OTEL, the ids of this process (lib/shared/otel/settings.js). Metrics and logs are not
// exported from here: the daemon exports them from outside (daemon/otel/).
//
// It never stops the app: a missing package, an app that sets up OpenTelemetry itself or an
// error in the SDK leaves the app running uninstrumented, with one line on stderr saying why.
const { selfInstrumented } = require('./self-detect')

function say (text) {
  process.stderr.write(`[xpm otel] ${text}\n`)
}

function start () {
  // Node 20 runs --require preloads in the module loader's thread too: one SDK, in the app's thread
  if (!require('node:worker_threads').isMainThread) return
  if (globalThis.__xpmOtelStarted) return // preloaded twice (a NODE_OPTIONS that names it too)
  globalThis.__xpmOtelStarted = true
  if ((process.env.OTEL_SDK_DISABLED || '').trim().toLowerCase() === 'true') return
  const own = selfInstrumented(process.cwd(), process.env, process.execArgv)
  if (own) {
    say(`the app sets up OpenTelemetry itself (${own}); xpm leaves it alone`)
    return
  }
  let parts
  try {
    parts = {
      sdk: require('@opentelemetry/sdk-node'),
      auto: require('@opentelemetry/auto-instrumentations-node')
    }
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err
    say('otel is on but the OpenTelemetry packages are not installed next to xpm [XPM_ERR_OTEL_MISSING]: ' +
      'install xpm with its optional dependencies (`npm install -g xpm --include=optional`); the app runs without traces')
    return
  }
  const { resourceFor } = require('./resource')
  // The daemon exports the process's figures and lines from outside; the SDK here does so too
  // only when the app's environment asks for it (OTEL_METRICS_EXPORTER, OTEL_LOGS_EXPORTER).
  const asked = (name) => (process.env[name] || '').trim() !== ''
  const noLogSending = asked('OTEL_LOGS_EXPORTER') ? {} : { disableLogSending: true }
  const sdk = new parts.sdk.NodeSDK({
    resource: resourceFor(process.env, process.cwd()),
    ...(asked('OTEL_METRICS_EXPORTER') ? {} : { metricReaders: [] }),
    ...(asked('OTEL_LOGS_EXPORTER') ? {} : { logRecordProcessors: [] }),
    instrumentations: [parts.auto.getNodeAutoInstrumentations({
      ...require('./instrumentations').defaultsOff(process.env),
      // the log libraries still put trace_id and span_id in each line (the daemon reads them)
      '@opentelemetry/instrumentation-pino': noLogSending,
      '@opentelemetry/instrumentation-winston': noLogSending,
      '@opentelemetry/instrumentation-bunyan': noLogSending
    })]
  })
  registerEsmHook()
  sdk.start()
  // The last spans go out when the loop empties, when xpm starts to stop the process (its drain
  // message, lib/agent/drain.js, comes before the stop signal) and at the stop signal itself.
  process.once('beforeExit', () => { sdk.shutdown().catch(() => {}) })
  process.on('internalMessage', flushOnDrain)
  for (const signal of ['SIGINT', 'SIGTERM']) flushOnSignal(signal)
}

const FLUSH_MS = 1000

// A flush resolves once its own export is done, not one an earlier flush started: the stop
// signal waits for every flush still under way.
const flushing = new Set()
function flush () {
  const provider = require('@opentelemetry/api').trace.getTracerProvider()
  const p = Promise.resolve((provider.getDelegate?.() ?? provider).forceFlush?.()).catch(() => {})
  flushing.add(p)
  p.finally(() => flushing.delete(p))
  return p
}

let draining = false
function flushOnDrain (msg) {
  if (draining || msg === null || typeof msg !== 'object' || msg.cmd !== 'NODE_XPM_DRAIN') return
  draining = true
  flush()
  for (const ms of [100, 500]) setTimeout(flush, ms).unref()
}

// A signal the app has no handler of its own for still ends it as before, by that signal, once
// the spans it holds are sent (FLUSH_MS at most; xpm's kill_timeout bounds the stop anyway). An
// app with its own handler is left to it: this one does nothing then.
function flushOnSignal (signal) {
  const handler = () => {
    if (process.listenerCount(signal) > 1) return
    process.removeListener(signal, handler)
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      process.kill(process.pid, signal)
    }
    Promise.all([...flushing, flush()]).then(end)
    setTimeout(end, FLUSH_MS)
  }
  process.on(signal, handler)
}

// ES modules are instrumented through import-in-the-middle's loader hook (Node >= 20.6).
function registerEsmHook () {
  const { register } = require('node:module')
  if (typeof register !== 'function') return
  const { pathToFileURL } = require('node:url')
  register('import-in-the-middle/hook.mjs', pathToFileURL(__filename).href)
}

try {
  start()
} catch (err) {
  say(`OpenTelemetry could not start; the app runs without traces: ${err && err.stack}`)
}
