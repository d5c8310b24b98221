'use strict'

const { STATUS } = require('./process-state')

// An instance as `list` and `show` reply it (lib/shared/process-fields.js names the fields), with the
// latest figures of the metrics.
function instanceJSON (inst, metrics) {
  const latest = metrics?.latest(inst.id) ?? null
  const extra = inst.processes().filter((h) => h !== inst.handle).map((h) => h.pid)
  return {
    id: inst.id,
    name: inst.name,
    namespace: inst.spec.namespace ?? 'default',
    instance: inst.index,
    pid: inst.pid,
    status: inst.status,
    wanted: inst.wanted, // the intent: wanted up (the status says how far the processes have come)
    restarts: inst.restarts,
    uptime: inst.status === STATUS.ONLINE && inst.onlineSince ? Date.now() - inst.onlineSince : 0,
    createdAt: inst.createdAt,
    mode: inst.spec.execMode,
    cpu: latest?.cpu ?? 0,
    memory: latest?.memory ?? 0,
    lastExit: inst.lastExit,
    lastRestartReason: inst.lastRestartReason,
    // with a readiness probe: whether the current process passes it (null without one)
    ready: inst.spec.readiness ? inst.status === STATUS.ONLINE && (inst.readiness?.ready ?? true) : null,
    ...(inst.readiness && !inst.readiness.ready ? { notReadyReason: inst.readiness.reason } : {}),
    ...(extra.length ? { extraPids: extra } : {}),
    metrics: latest && latest.heapUsed != null
      ? pick(latest, ['heapUsed', 'heapTotal', 'rss', 'elP50', 'elP95', 'elP99', 'elMax', 'elu', 'at'])
      : null
  }
}

function pick (obj, keys) {
  const out = {}
  for (const k of keys) out[k] = obj[k]
  return out
}

module.exports = { instanceJSON }
