'use strict'

const os = require('node:os')
const { nearestPackage } = require('./self-detect')

// The resource of an app process's telemetry: what xpm knows about it (XPM_OTEL, set by the
// daemon: lib/shared/otel/settings.js) and its package.json's version. The SDK merges the
// detected resource over this one, so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
function resourceAttributes (env, cwd) {
  let ids = {}
  try { ids = JSON.parse(env.XPM_OTEL || '{}') } catch {}
  const attrs = {
    'service.name': ids.app || 'unknown_service:node',
    'service.instance.id': instanceId(ids),
    'host.name': os.hostname(),
    'process.pid': process.pid,
    'process.runtime.name': 'nodejs',
    'process.runtime.version': process.versions.node
  }
  if (ids.namespace) attrs['service.namespace'] = ids.namespace
  const version = nearestPackage(cwd)?.json?.version
  if (typeof version === 'string') attrs['service.version'] = version
  if (ids.app !== undefined) attrs['xpm.app'] = ids.app
  if (ids.instance !== undefined) attrs['xpm.instance'] = ids.instance
  if (ids.id !== undefined) attrs['xpm.id'] = ids.id
  if (ids.restarts !== undefined) attrs['xpm.restarts'] = ids.restarts
  return attrs
}

// Stable per host, app and instance (a restart keeps it), as the semantic conventions ask.
function instanceId (ids) {
  return `${os.hostname()}/${ids.app ?? 'app'}/${ids.instance ?? 0}`
}

function resourceFor (env, cwd) {
  return require('@opentelemetry/resources').resourceFromAttributes(resourceAttributes(env, cwd))
}

module.exports = { resourceAttributes, resourceFor, instanceId }
