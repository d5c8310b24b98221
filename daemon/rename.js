'use strict'

const { XpmError } = require('../lib/shared/errors')
const { announce } = require('./command-results')

// `xpm restart <app> --name <new>` (Supervisor#rename): the app is stopped and forgotten, then
// created anew under the new name with the same process ids (kept from reuse in between), and
// started. The intent is the renamed app, every instance wanted up, from the moment the rename
// is accepted: while the old app's processes stop, `supervisor.renaming` holds it, and the saved
// state lists it (persistence/snapshot.js), so a daemon crash meanwhile loses no app.
async function renameApp (supervisor, target, spec, { onProgress = null } = {}) {
  supervisor.refuseWhenClosing()
  const apps = supervisor.appsOf(target)
  if (apps.length !== 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `--name renames one app; "${target}" names ${apps.length}`, { details: { target } })
  const [app] = apps
  const taken = () => {
    if (supervisor.apps.has(spec.name) || supervisor.renaming.has(spec.name)) throw new XpmError('XPM_ERR_APP_EXISTS', `An app named "${spec.name}" is already managed; ${app.name} keeps its name`, { details: { name: spec.name } })
  }
  taken()
  announce(onProgress, [app.spec, spec], { stop: true, start: true })
  const slots = app.kept.map((i) => ({ index: i.index, id: i.id })) // not those a scale-down removes
  const unhold = supervisor.ids.hold(slots.map((s) => s.id)) // until the new instances take them
  let registered
  const done = new Promise((resolve) => { registered = resolve }) // a start of the new name waits for it
  supervisor.renaming.set(spec.name, { from: app.name, spec: { ...spec, instances: slots.length }, listens: app.listens, slots, done })
  try {
    await app.delete()
    supervisor.refuseWhenClosing()
    const renamed = supervisor.addApp({ ...spec, instances: slots.length }, { listens: app.listens, slots })
    supervisor.renaming.delete(spec.name)
    registered()
    return { name: renamed.name, renamedFrom: app.name, ...(await renamed.restart(renamed.instances, { onProgress, reason: 'renamed' })) }
  } finally {
    supervisor.renaming.delete(spec.name)
    registered()
    unhold()
  }
}

// A command whose target names an app by either name of a rename under way — the old one, whose
// processes the list shows stopping, or the new one, which it shows next — applies to the renamed
// app once it is registered: → { done, target: the target with the old name replaced by the new
// one }, or null when no rename is concerned.
function renameUnderWay (supervisor, target) {
  const names = (Array.isArray(target) ? target : [target]).map(String)
  for (const [to, { from, done }] of supervisor.renaming) {
    if (!names.includes(to) && !names.includes(from)) continue
    const rename = (t) => String(t) === from ? to : t
    return { done, target: Array.isArray(target) ? target.map(rename) : rename(target) }
  }
  return null
}

module.exports = { renameApp, renameUnderWay }
