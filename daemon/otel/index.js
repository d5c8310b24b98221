'use strict'

const { destination } = require('../../lib/shared/otel/settings')
const { createAppTelemetry } = require('./app-telemetry')

// The daemon's OpenTelemetry export: one AppTelemetry per app with `otel` metrics or logs on,
// made when the app appears, remade when its settings change, closed when it goes (sync(),
// called by daemon/otel-switch.js on the model's changes). Loaded only when some app needs it.
function createOtelExport ({ supervisor, metrics, logSink, logger, otelEnv }) {
  const apps = new Map() // name → { key, telemetry }
  const closing = new Set()
  const closeOne = (telemetry) => {
    const p = telemetry.close().catch((err) => logger?.warn({ event: 'otel-close', app: telemetry.name, err }, 'closing an app\'s OpenTelemetry export failed'))
    closing.add(p)
    p.finally(() => closing.delete(p))
  }

  function sync () {
    const seen = new Set()
    for (const app of supervisor.apps.values()) {
      const spec = app.spec
      if (!spec.otel?.metrics && !spec.otel?.logs) continue
      const dests = { metrics: destination(spec.otel, spec.env || {}, otelEnv, 'metrics'), logs: destination(spec.otel, spec.env || {}, otelEnv, 'logs') }
      const key = JSON.stringify([spec.otel, dests, spec.namespace])
      seen.add(spec.name)
      const current = apps.get(spec.name)
      if (current?.key === key) continue
      if (current) closeOne(current.telemetry)
      try {
        apps.set(spec.name, { key, telemetry: createAppTelemetry({ spec, dests, supervisor, metrics, logSink, logger }) })
        logger?.info({ event: 'otel-export', app: spec.name, metrics: spec.otel.metrics ? dests.metrics.url : null, logs: spec.otel.logs ? dests.logs.url : null }, `${spec.name}: OpenTelemetry export on`)
      } catch (err) {
        apps.delete(spec.name)
        logger?.error({ event: 'otel-export-failed', app: spec.name, err }, `${spec.name}: the OpenTelemetry export could not start`)
      }
    }
    for (const [name, { telemetry }] of apps) {
      if (seen.has(name)) continue
      apps.delete(name)
      closeOne(telemetry)
    }
  }

  return {
    sync,
    stats: (name) => apps.get(name)?.telemetry.stats() ?? null,
    allStats: () => [...apps].flatMap(([app, { telemetry }]) => Object.entries(telemetry.stats()).map(([signal, s]) => ({ app, signal, exported: s.exported, dropped: s.dropped }))),
    // the last figures and lines go out, within the exporters' timeouts
    async close () {
      for (const { telemetry } of apps.values()) closeOne(telemetry)
      apps.clear()
      await Promise.allSettled([...closing])
    }
  }
}

module.exports = { createOtelExport }
