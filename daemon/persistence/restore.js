'use strict'

const { validateSpec } = require('../../lib/config/validate-spec')

// Puts saved apps back into the supervisor in two steps, so the daemon can answer (and list the
// apps) while orphans of a crashed daemon are still being stopped:
//   register: every saved app and instance exists, stopped, with its saved id when free;
//   start:    the instances wanted online are launched (all apps at once).
// An app whose name the supervisor already has is left alone: a restore never duplicates.
function registerApps (supervisor, state, { pending, validate = validateSpec, logger = null } = {}) {
  const skipped = []
  const registered = []
  const saved = state.apps.filter((app) => {
    if (!supervisor.apps.has(app.spec.name)) return true
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
    const slots = [...entry.instances].sort((a, b) => a.index - b.index)
    const app = supervisor.addApp(spec, { listens: entry.listens === true, slots: slots.map((i) => ({ index: i.index, id: keepIds ? i.id : null })) })
    slots.forEach((saved, n) => pending?.set(app.instances[n], saved.desired))
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

async function startRegistered (supervisor, registered, { pending } = {}) {
  return Promise.all(registered.map(async (app) => {
    const current = supervisor.apps.get(app.name) === app
    const wanted = current
      ? app.instances.filter((i) => pending?.get(i) !== 'stopped' && i.status === 'stopped')
      : []
    // the start operation moves each instance to 'launching' within microtasks (the app's queue
    // is empty: it was just registered), before any snapshot can run, so from here on the
    // snapshot reads the wanted state from the statuses themselves
    const started = wanted.length ? app.start({ instances: wanted }) : Promise.resolve({ failures: [] })
    for (const i of app.instances) pending?.delete(i)
    const { failures } = await started.catch((err) => ({ failures: [{ message: err.message }] }))
    return {
      name: app.name,
      action: current ? 'restored' : 'deleted meanwhile',
      ids: app.instances.map((i) => i.id),
      online: wanted.length - failures.length,
      stopped: app.instances.length - wanted.length,
      failures
    }
  }))
}

module.exports = { registerApps, startRegistered }
