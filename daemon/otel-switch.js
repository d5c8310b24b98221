'use strict'

// The daemon's OpenTelemetry export (daemon/otel/), loaded the first time an app with `otel`
// metrics or logs on is registered, and never before: a daemon whose apps have it off loads no
// OpenTelemetry module and keeps no timer for it (test/unit/module-graph.test.js, and
// test/integration/otel-daemon.test.js checks the loaded modules). The check runs on the model's
// 'change' events and costs one pass over the apps' specs.
const CLOSE_MS = 3000

function createOtelSwitch ({ supervisor, metrics, logSink, logger, otelEnv }) {
  let exporter = null
  let failed = false
  const wanted = () => {
    for (const app of supervisor.apps.values()) if (app.spec.otel?.metrics || app.spec.otel?.logs) return true
    return false
  }
  const sync = () => {
    if (!exporter && (failed || !wanted())) return
    if (!exporter) {
      try {
        exporter = require('./otel').createOtelExport({ supervisor, metrics, logSink, logger, otelEnv })
      } catch (err) {
        failed = true // said once; the apps run all the same
        const missing = err.code === 'MODULE_NOT_FOUND'
        logger?.error({ event: 'otel-unavailable', code: missing ? 'XPM_ERR_OTEL_MISSING' : undefined, err }, missing
          ? 'an app has otel on but the OpenTelemetry packages are not installed next to xpm (install xpm with its optional dependencies) [XPM_ERR_OTEL_MISSING]'
          : 'the OpenTelemetry export could not start')
        return
      }
    }
    exporter.sync()
  }
  const dispose = supervisor.subscribe({ change: sync })
  return {
    get loaded () { return exporter !== null },
    // [{ app, signal, exported, dropped }] of every app the daemon exports for (/metrics)
    allStats: () => exporter?.allStats() ?? [],
    // What `xpm show` says about one app's telemetry (null when it has none).
    describe (spec) {
      if (!spec?.otel) return null
      const { describeSettings } = require('./otel-describe')
      return describeSettings(spec, otelEnv, exporter?.stats(spec.name) ?? null, failed)
    },
    // the last figures and lines go out, but a collector that does not answer holds the
    // daemon's exit back CLOSE_MS at most
    async close () {
      dispose()
      if (!exporter) return
      let timer
      await Promise.race([exporter.close(), new Promise((resolve) => { timer = setTimeout(resolve, CLOSE_MS) })])
      clearTimeout(timer)
    }
  }
}

module.exports = { createOtelSwitch }
