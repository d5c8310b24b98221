'use strict'

const path = require('node:path')
const { XpmError } = require('../lib/shared/errors')

// What a target names. A target is 'all', an app name, a process id, a namespace (apps without
// one are in 'default'), a script (its absolute path, a path ending it, or its file name), or an
// array of these (the union). Names win over namespaces and scripts. Regular expressions are
// expanded to names by the CLI, never run here (a pathological pattern would block the event
// loop). A target that matches nothing throws XPM_ERR_APP_NOT_FOUND naming it; so does 'all'
// with no process, unless allowEmpty. `apps` is the supervisor's Map of name → App.

// A target → the instances it names, in id order.
function instancesOfTarget (apps, target, { allowEmpty = false } = {}) {
  const targets = Array.isArray(target) ? target : [target]
  const found = new Set()
  for (const t of targets) for (const inst of resolveOne(apps, String(t), allowEmpty)) found.add(inst)
  return [...found].sort((a, b) => a.id - b.id)
}

function resolveOne (apps, target, allowEmpty) {
  const all = [...apps.values()]
  if (target === 'all') {
    const instances = all.flatMap((a) => a.instances)
    if (instances.length || allowEmpty) return instances
    throw new XpmError('XPM_ERR_APP_NOT_FOUND', 'Nothing matches "all": no app is managed', { details: { target } })
  }
  // digits are a process id first, then a name (an app may be called "455"), as in PM2
  if (/^\d+$/.test(target)) {
    const found = all.flatMap((a) => a.instances).find((i) => i.id === Number(target))
    if (found) return [found]
  }
  const app = apps.get(target)
  if (app) return [...app.instances]
  const inNamespace = all.filter((a) => (a.spec.namespace ?? 'default') === target)
  if (inNamespace.length) return inNamespace.flatMap((a) => a.instances)
  const byScript = all.filter((a) => scriptMatches(a.spec.script, target))
  if (byScript.length) return byScript.flatMap((a) => a.instances)
  throw notFound(apps, target, 'app, process id, namespace or script')
}

// One app by its name (scale acts on exactly one app).
function appNamed (apps, name) {
  const app = apps.get(String(name))
  if (app) return app
  throw notFound(apps, name, 'app')
}

function notFound (apps, target, what) {
  const known = [...apps.keys()]
  return new XpmError('XPM_ERR_APP_NOT_FOUND',
    `No ${what} "${target}"` + (known.length ? ` (known apps: ${known.join(', ')})` : ' (no apps are managed)'),
    { details: { target } })
}

// Whether an app's script is the one a target names: its absolute path, a relative path that
// ends it (`test/echo.js`), or its file name (`echo.js`), as PM2 users type it.
function scriptMatches (script, target) {
  if (typeof script !== 'string' || !target) return false
  if (path.isAbsolute(target)) return path.normalize(target) === script
  const relative = path.normalize(target)
  if (relative.startsWith('..')) return false
  return relative.includes(path.sep) ? script.endsWith(path.sep + relative) : path.basename(script) === relative
}

module.exports = { instancesOfTarget, appNamed, scriptMatches }
