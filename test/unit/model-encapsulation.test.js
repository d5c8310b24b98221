'use strict'

// The model keeps its own state (docs/architecture.md, "One owner per app"): Instance, App and
// ProcessHandle hold their fields privately, and the rooms around them only read. Two checks: a
// scan of the code for an assignment to one of their fields outside the class that owns it, and
// the real objects, which refuse a write (getters only, no field added).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Supervisor } = require('../../daemon/supervisor')
const { ProcessHandle } = require('../../daemon/launchers/handle')
const { ClusterHandle } = require('../../daemon/launchers/cluster')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')

const root = path.join(__dirname, '..', '..')

function jsFiles (dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name)
    if (e.isDirectory()) return jsFiles(rel)
    return e.name.endsWith('.js') ? [rel] : []
  })
}

const getters = (proto) => Object.entries(Object.getOwnPropertyDescriptors(proto)).filter(([, d]) => d.get).map(([k]) => k)

// The fields of each class, and the files allowed to write them (the class's own file).
function owners () {
  const sup = new Supervisor({ launcher: fakeLauncher().launcherFor })
  const app = sup.addApp(fakeSpec('probe'))
  app.addInstances([0])
  const inst = app.instances[0]
  return [
    { what: 'Instance', file: 'daemon/model/instance.js', fields: getters(Object.getPrototypeOf(inst)) },
    { what: 'App', file: 'daemon/model/app.js', fields: getters(Object.getPrototypeOf(app)) },
    { what: 'ProcessHandle', file: 'daemon/launchers/handle.js', fields: [...getters(ProcessHandle.prototype), ...getters(ClusterHandle.prototype)] }
  ]
}

// Assignments `x.field = …` (and ++, --, op=) to a field of the model's classes, in the daemon's
// code outside the class that owns it. Receivers are matched by name (inst, handle, app, …): the
// daemon's code names them so; other objects with such fields are plain records.
const RECEIVER = '(?:inst|instance|i|slot|handle|h|spare|previous|old|current|app|a|this\\.app|inst\\.app|inst\\.handle|instance\\.handle|this\\.handle)'

function outsideWrites ({ fields, file: own }) {
  const re = new RegExp(`\\b${RECEIVER}\\.(${fields.join('|')})\\s*(?:[-+*/%&|^?]{1,2})?=(?![=>])|\\b${RECEIVER}\\.(${fields.join('|')})\\s*(?:\\+\\+|--)`, 'g')
  const found = []
  for (const file of jsFiles('daemon')) {
    if (file === own) continue
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n')
    lines.forEach((line, n) => {
      if (/^\s*\/\//.test(line)) return
      for (const m of line.matchAll(re)) found.push(`${file}:${n + 1}: ${m[0]}`)
    })
  }
  return found
}

test('no code outside its class writes a field of an Instance, an App or a ProcessHandle', () => {
  for (const owner of owners()) {
    assert.ok(owner.fields.length > 8, `${owner.what}: its fields are read through getters`)
    assert.deepEqual(outsideWrites(owner), [], `${owner.what}'s fields are written only in ${owner.file}`)
  }
})

test('the scan finds such a write (it would have found the ones the model had)', () => {
  const [instance, , handle] = owners()
  const writes = (fields) => new RegExp(`\\b${RECEIVER}\\.(${fields.join('|')})\\s*(?:[-+*/%&|^?]{1,2})?=(?![=>])`)
  for (const line of ['inst.givingUp = reason', 'inst.crashTimes = decision.crashTimes', 'app.desiredSpec = spec']) {
    assert.match(line, writes([...instance.fields, ...owners()[1].fields]), line)
  }
  for (const line of ['handle.stopCause ??= cause', 'this.handle.signalSent = name', 'handle.portTaken = text']) assert.match(line, writes(handle.fields), line)
  assert.doesNotMatch('inst.status === STATUS.ONLINE', writes(instance.fields))
  assert.doesNotMatch('if (handle.exited) return', writes(handle.fields))
})

test('the real objects refuse a write: getters only, no field added; view() is a frozen snapshot', async (t) => {
  const fake = fakeLauncher()
  const sup = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => sup.close())
  await sup.start([fakeSpec('api')])
  const app = sup.apps.get('api')
  const [inst] = app.instances
  assert.throws(() => { inst.status = 'online' }, TypeError)
  assert.throws(() => { inst.wanted = false }, TypeError)
  assert.throws(() => { inst.pm2Io = {} }, TypeError, 'nothing hangs its own field on a slot')
  assert.throws(() => { app.spec = {} }, TypeError)
  assert.throws(() => { app.instances.push(inst) }, TypeError)
  assert.throws(() => { inst.handle.exited = true }, TypeError)
  assert.throws(() => { inst.handle.stopCause = 'x' }, TypeError)
  const view = inst.view()
  assert.equal(Object.isFrozen(view), true)
  assert.deepEqual([view.status, view.wanted, view.pid ?? inst.pid, view.label], ['online', true, inst.pid, 'api[0]'])
  assert.throws(() => { view.status = 'stopped' }, TypeError)
  assert.equal(inst.status, 'online')
})

test('no module-level mutable state in the model or the launchers (what a daemon shares lives in its objects)', () => {
  const found = []
  for (const file of [...jsFiles('daemon/model'), ...jsFiles('daemon/launchers')]) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n')
    lines.forEach((line, n) => {
      // top-level `let`/`var`, or a top-level collection or object made empty to be filled later
      if (/^(?:let|var) /.test(line) || /^const \w+ = (?:new (?:Map|Set|WeakMap|WeakSet|\w+)\(\)|\[\]|\{\})/.test(line)) found.push(`${file}:${n + 1}: ${line}`)
    })
  }
  assert.deepEqual(found, [])
})
