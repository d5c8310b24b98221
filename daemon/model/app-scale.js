'use strict'

const { planScale, scaleTarget, parseScaleChange } = require('./scale')

// `xpm scale` on one app (App#scale calls it), as one operation of its queue: the change as typed
// ('4', '+2', '-1'); removed instances are retired, new ones start when the app runs.
function scaleApp (app, change) {
  const parsed = typeof change === 'object' ? change : parseScaleChange(change)
  return app.run('scale', async (signal) => {
    const from = app.kept.length
    const to = scaleTarget(from, parsed)
    const running = app.running
    const plan = planScale(app.kept.map((i) => i.index), to)
    const removed = app.kept.filter((i) => plan.remove.includes(i.index))
    app.spec = { ...app.spec, instances: to }
    app.desiredSpec = { ...app.desiredSpec, instances: to }
    app.want(removed, false, { by: 'scale', removing: true })
    const added = app.addInstances(plan.add)
    if (running) app.want(added, true)
    await app.retire(removed)
    signal.throwIfAborted()
    const started = running && added.length ? await app.launchAll(added.filter((i) => i.wanted), signal) : { failures: [] }
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

// A new spec keeps instance ids when the count is unchanged, adds or removes trailing ones
// otherwise. New instances are wanted up when the app is; removed ones are marked (no longer
// part of the intent) and stay listed until retire() has stopped them.
function applySpec (app, spec) {
  app.spec = spec
  const plan = planScale(app.kept.map((i) => i.index), spec.instances)
  const removed = app.kept.filter((i) => plan.remove.includes(i.index))
  const wanted = app.running
  app.want(removed, false, { by: 'scale', removing: true })
  const added = app.addInstances(plan.add)
  if (wanted) app.want(added, true)
  return { added, removed }
}

// `xpm start app.js -f` next to a running app.js: PM2 starts another copy; here the copy is
// spec.instances more instances of the same app, at the lowest free indexes.
function addCopy (app, spec, { onProgress = null } = {}) {
  const count = Math.max(1, spec.instances || 1)
  return app.run('scale', async (signal) => {
    const { add } = planScale(app.kept.map((i) => i.index), app.kept.length + count)
    app.spec = { ...app.spec, instances: app.kept.length + count }
    app.desiredSpec = { ...app.desiredSpec, instances: app.spec.instances }
    const added = app.addInstances(add)
    app.want(added, true)
    return { name: app.name, action: `started ${count} more (another copy, -f)`, ...(await app.launchAll(added, signal, onProgress)) }
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

module.exports = { scaleApp, applySpec, addCopy, alreadyRunning }
