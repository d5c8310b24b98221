'use strict'

const { XpmError } = require('../errors')

// The saved form of the daemon's desired state, shared by state.json (kept after every change),
// dump.pm2 (`xpm save`) and update.json (`xpm update`). Pure: values in, values out.
//   { version, savedAt, cleanShutdown, daemon: { pid, version },
//     apps: [{ spec, listens, instances: [{ id, index, desired: 'online' | 'stopped', finished? }] }],
//     processes: [{ id, name, instance, pid, startTime, mode, group }] }
const STATE_VERSION = 1
const DESIRED = new Set(['online', 'stopped'])

function serializeState ({ apps, processes = [], cleanShutdown = false, daemon = null, now = Date.now }) {
  return JSON.stringify({
    version: STATE_VERSION,
    savedAt: new Date(now()).toISOString(),
    cleanShutdown,
    daemon,
    apps,
    processes
  }, null, 2) + '\n'
}

// Checks the shape the restore relies on; a file from a newer xpm is refused rather than guessed.
function parseState (value, { file = 'the saved state' } = {}) {
  // damaged: not the shape a restore needs (read-saved.js sets such a file aside); newer: refused
  const bad = (why, { newer = false } = {}) => new XpmError('XPM_ERR_DUMP_INVALID', `${file}: ${why}`, { details: newer ? { file, newer } : { file, damaged: true } })
  if (Array.isArray(value)) value = { version: STATE_VERSION, apps: value } // a bare app list
  if (!value || typeof value !== 'object') throw bad('expected a JSON object')
  if (!Number.isInteger(value.version) || value.version < 1) throw bad(`expected a numeric "version", got ${JSON.stringify(value.version)}`)
  if (value.version > STATE_VERSION) throw bad(`written by a newer xpm (format ${value.version}, this one reads ${STATE_VERSION}); run \`xpm update\``, { newer: true })
  if (!Array.isArray(value.apps)) throw bad('expected "apps" to be an array')
  const names = new Set()
  const apps = value.apps.map((app, n) => {
    const spec = app?.spec
    if (!spec || typeof spec !== 'object' || typeof spec.name !== 'string' || !spec.name) throw bad(`app #${n} has no spec with a name`)
    if (names.has(spec.name)) throw bad(`app "${spec.name}" is listed twice`)
    names.add(spec.name)
    return { spec, listens: app.listens === true, instances: instancesOf(app, spec, bad) }
  })
  const processes = Array.isArray(value.processes) ? value.processes.filter(isProcessRecord) : []
  return {
    version: value.version,
    savedAt: typeof value.savedAt === 'string' ? value.savedAt : null,
    cleanShutdown: value.cleanShutdown === true,
    daemon: value.daemon && typeof value.daemon === 'object' ? value.daemon : null,
    apps,
    processes
  }
}

// Per instance (what xpm writes) or one `desired` for the whole app (hand-written files).
function instancesOf (app, spec, bad) {
  if (!Array.isArray(app.instances)) {
    const desired = app.desired ?? 'online'
    if (!DESIRED.has(desired)) throw bad(`app "${spec.name}": expected "desired" to be "online" or "stopped", got ${JSON.stringify(desired)}`)
    const count = Number.isInteger(spec.instances) && spec.instances > 0 ? spec.instances : 1
    return Array.from({ length: count }, (_, index) => ({ id: null, index, desired }))
  }
  return app.instances.map((inst) => {
    if (!inst || !Number.isInteger(inst.index) || inst.index < 0) throw bad(`app "${spec.name}": every instance needs an "index"`)
    const desired = inst.desired ?? 'online'
    if (!DESIRED.has(desired)) throw bad(`app "${spec.name}": expected "desired" to be "online" or "stopped", got ${JSON.stringify(desired)}`)
    // finished: a job that exited 0 and stays down (its dependents may start without running it again)
    return { id: Number.isInteger(inst.id) && inst.id >= 0 ? inst.id : null, index: inst.index, desired, ...(inst.finished === true && desired === 'stopped' ? { finished: true } : {}) }
  })
}

function isProcessRecord (p) {
  return p && Number.isInteger(p.pid) && p.pid > 1 && typeof p.startTime === 'string' && /^\d+$/.test(p.startTime)
}

function countInstances (state, desired = null) {
  return state.apps.reduce((n, app) => n + app.instances.filter((i) => desired === null || i.desired === desired).length, 0)
}

// What a hand-over or a save holds, for the CLI to report and wait on.
function summarizeApps (apps) {
  return {
    apps: apps.length,
    instances: apps.reduce((n, a) => n + a.instances.length, 0),
    online: apps.reduce((n, a) => n + a.instances.filter((i) => i.desired === 'online').length, 0),
    listenTimeout: Math.max(0, ...apps.map((a) => a.spec.listenTimeout || 0))
  }
}

module.exports = { serializeState, parseState, countInstances, summarizeApps, STATE_VERSION }
