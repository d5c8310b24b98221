'use strict'

const { planScale, scaleTarget, parseScaleChange } = require('./scale')

// An app's instance count, recorded the moment a command that changes it is accepted (a scale,
// `start -f`, a new spec: docs/architecture.md, "Intent"), so the saved state has it before any
// operation runs. The instances it removes leave the intent at once and are retired beside the
// operations under way (drained, stopped, then unlisted), as a delete of some instances is; the
// ones it adds are listed at once, wanted up when `wantAdded`, and the operation of the command
// launches them. `spec`: a new spec, which becomes desiredSpec; the live spec takes it when the
// app's next operation runs (App#adoptSpec). `retired` settles once the removed ones are gone.
function reshape (app, { spec = null, count = spec.instances, wantAdded = false }) {
  if (spec) app.desire(spec)
  if (app.desiredSpec.instances !== count) app.desire({ ...app.desiredSpec, instances: count })
  const plan = planScale(app.kept.map((i) => i.index), count)
  const removed = app.kept.filter((i) => plan.remove.includes(i.index))
  app.want(removed, false, { by: 'scale', removing: true })
  const added = app.addInstances(plan.add)
  if (wantAdded) app.want(added, true)
  const retired = removed.length ? app.retire(removed) : Promise.resolve()
  retired.catch(() => {})
  app.emit('intent', { name: app.name, id: null, instance: null, wanted: null }) // saved at once (persistence/state-keeper.js)
  return { added, removed, retired }
}

const NO_CHANGE = Object.freeze({ added: [], removed: [], retired: Promise.resolve() })

// `xpm scale` on one app (App#scale calls it): the change as typed ('4', '+2', '-1'), counted
// from the instances the intent has when it is accepted; the operation waits for the removed
// ones to be gone and starts the new ones when the app runs.
function scaleApp (app, change) {
  let to
  try {
    to = scaleTarget(app.kept.length, typeof change === 'object' ? change : parseScaleChange(change))
  } catch (err) {
    return Promise.reject(err)
  }
  const from = app.kept.length
  const running = app.running
  const { added, removed, retired } = reshape(app, { count: to, wantAdded: running })
  return app.run('scale', async (signal) => {
    await retired
    signal.throwIfAborted()
    app.adoptSpec()
    const launch = added.filter((i) => i.wanted && app.instances.includes(i))
    const started = running && launch.length ? await app.launchAll(launch, signal) : { failures: [] }
    return {
      name: app.name,
      from,
      to,
      added: added.map((i) => ({ id: i.id, instance: i.index })),
      removed: removed.map((i) => ({ id: i.id, instance: i.index })),
      started: running,
      failures: started.failures
    }
  })
}

// `xpm start app.js -f` next to a running app.js: PM2 starts another copy; here the copy is
// spec.instances more instances of the same app, at the lowest free indexes.
function addCopy (app, spec, { onProgress = null } = {}) {
  const count = Math.max(1, spec.instances || 1)
  const { added } = reshape(app, { count: app.kept.length + count, wantAdded: true })
  return app.run('scale', async (signal) => {
    app.adoptSpec()
    const launch = added.filter((i) => app.instances.includes(i))
    return { name: app.name, action: `started ${count} more (another copy, -f)`, ...(await app.launchAll(launch, signal, onProgress)) }
  })
}

// `xpm start app.js` (without -f) next to a running app.js: refused, as PM2 does.
function alreadyRunning (app, spec) {
  return {
    name: app.name,
    action: 'already running',
    ids: app.ids(),
    failures: [{ id: null, instance: null, code: 'XPM_ERR_APP_EXISTS', message: `${app.name} already runs ${spec.script}; add -f to start another copy of it, or use \`xpm restart ${app.name}\`` }]
  }
}

module.exports = { reshape, NO_CHANGE, scaleApp, addCopy, alreadyRunning }
