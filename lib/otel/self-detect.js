'use strict'

const fs = require('node:fs')
const path = require('node:path')

// Whether the app sets up OpenTelemetry itself, so xpm's bootstrap must not instrument it a
// second time (every span twice, two exporters). Runs in the app's process at its start, where a
// synchronous read is fine. Signs, in order:
//  - its Node flags or NODE_OPTIONS preload an OpenTelemetry register module;
//  - a tracer provider is already registered globally (something preloaded before xpm);
//  - its package.json depends on an OpenTelemetry SDK (it starts one in its code).
// The API package alone (@opentelemetry/api, to make spans by hand) is no sign: xpm's SDK serves
// it. → a short reason, or null.
const SDKS = ['@opentelemetry/sdk-node', '@opentelemetry/sdk-trace-node', '@opentelemetry/sdk-trace-base', '@opentelemetry/auto-instrumentations-node']

const XPM_ROOT = path.join(__dirname, '..', '..')

function selfInstrumented (cwd, env, execArgv) {
  const flags = [...execArgv, env.NODE_OPTIONS || ''].join(' ')
  if (/@opentelemetry\//.test(flags)) return 'its Node flags preload @opentelemetry'
  const api = globalThis[Symbol.for('opentelemetry.js.api.1')]
  if (api && api.trace) return 'a tracer provider is already registered'
  const pkg = nearestPackage(cwd)
  if (pkg && path.dirname(pkg.file) !== XPM_ROOT) { // xpm's own package.json (its examples) is no app's
    const deps = { ...pkg.json.dependencies }
    const sdk = SDKS.find((name) => deps[name] !== undefined)
    if (sdk) return `${path.relative(cwd, pkg.file) || 'package.json'} depends on ${sdk}`
  }
  return null
}

// The nearest package.json from dir upwards, parsed, or null.
function nearestPackage (dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const file = path.join(d, 'package.json')
    try {
      return { file, json: JSON.parse(fs.readFileSync(file, 'utf8')) }
    } catch (err) {
      if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') return null
    }
    if (path.dirname(d) === d) return null
  }
}

module.exports = { selfInstrumented, nearestPackage }
