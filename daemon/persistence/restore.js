'use strict'

const { validateSpec } = require('../../lib/shared/config/validate-spec')
const { checkReusePort } = require('../check-specs')

// Puts saved apps back into the supervisor in two steps, so the daemon can answer (and list the
// apps) while orphans of a crashed daemon are still being stopped:
//   register: every saved app and instance exists, stopped, with its saved id when free, and
//             with its saved intent (wanted online or not);
//   start:    the processes are brought to that intent (all apps at once, depends_on honoured).
//             A command accepted in between (`xpm stop all` during the recovery) changed the
//             intent, and the start follows it.
// An app whose name the supervisor already has is left alone: a restore never duplicates.
function registerApps (supervisor, state, { validate = validateSpec, logger = null, reusePort = checkReusePort } = {}) {
  const skipped = []
  const registered = []
  const saved = state.apps.filter((app) => {
    // an app under way to this name (a rename, daemon/rename.js) is the running daemon's already
    if (!supervisor.apps.has(app.spec.name) && !supervisor.renaming?.has(app.spec.name)) return true
    skipped.push({ name: app.spec.name, action: 'already running' })
    return false
  })
  const keepIds = canKeepIds(supervisor, saved)
  for (const entry of saved) {
    let spec
    try {
      spec = validate(entry.spec)
    } catch (err) {
      logger?.error({ event: 'restore', app: entry.spec.name, err }, `cannot restore ${entry.spec.name}: ${err.message}`)
      skipped.push({ name: entry.spec.name, action: 'skipped', reason: err.message })
      continue
    }
    // Saved by a daemon on a newer Node: the app comes back, its workers listen through the
    // daemon (round-robin) until a daemon that can do reuse_port runs it (lib/agent/reuse-port.js).
    try { reusePort(spec) } catch (err) { logger?.warn({ event: 'restore', app: spec.name }, `${err.message}; restored with round-robin meanwhile`) }
    const slots = [...entry.instances].sort((a, b) => a.index - b.index)
    const app = supervisor.addApp(spec, { listens: entry.listens === true, slots: slots.map((i) => ({ index: i.index, id: keepIds ? i.id : null })) })
    slots.forEach((saved, n) => {
      if (saved.desired !== 'stopped') app.want([app.instances[n]], true, { by: 'restore' })
      else if (saved.finished) app.instances[n].restoreFinished()
    })
    registered.push(app)
  }
  return { registered, skipped }
}

// Saved ids are kept when every instance has one and none is in use: `xpm stop 3` means the
// same process before and after a crash.
function canKeepIds (supervisor, saved) {
  const ids = saved.flatMap((a) => a.instances.map((i) => i.id))
  if (!ids.length || ids.some((id) => id === null)) return false
  const used = new Set(supervisor.allInstances().map((i) => i.id))
  return new Set(ids).size === ids.length && ids.every((id) => !used.has(id))
}

async function startRegistered (supervisor, registered) {
  const current = registered.filter((app) => supervisor.apps.get(app.name) === app && !app.deleting)
  const starts = supervisor.converge(current)
  return Promise.all(registered.map(async (app) => {
    const n = current.indexOf(app)
    if (n < 0) return { name: app.name, action: 'deleted meanwhile', ids: [], online: 0, stopped: 0, failures: [] }
    const result = await starts[n].catch((err) => ({ ids: [], failures: [{ code: err.code, message: err.message }] }))
    const failures = result.failures ?? []
    const online = app.instances.filter((i) => i.wanted).length - failures.length
    return {
      name: app.name,
      action: 'restored',
      ids: app.instances.map((i) => i.id),
      online: Math.max(0, online),
      stopped: app.instances.length - app.instances.filter((i) => i.wanted).length,
      failures
    }
  }))
}

module.exports = { registerApps, startRegistered }
