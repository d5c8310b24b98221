'use strict'

// The catalogue of the model's events (daemon/events.js): the bus refuses a name it does not
// list, the code names no other (a scan of every emit and subscribe on the bus), and a model
// driven through starts, crashes, reloads, scales, stops and deletes emits every payload in
// its one shape.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventBus } = require('../../daemon/event-bus')
const { EVENTS, payloadProblems } = require('../../daemon/events')
const { Supervisor } = require('../../daemon/supervisor')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { waitFor } = require('../helpers/wait')

const root = path.join(__dirname, '..', '..')

function jsFiles (dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name)
    if (e.isDirectory()) return jsFiles(rel)
    return e.name.endsWith('.js') ? [rel] : []
  })
}

// Every name the code emits on the bus or listens to there: emits of the model's classes and
// of the registry, and the handlers given to supervisor.subscribe / supervisor.on.
function namesInCode () {
  const found = []
  for (const file of jsFiles('daemon')) {
    const text = fs.readFileSync(path.join(root, file), 'utf8')
    // the model's classes emit directly or through the effects of their decisions (['emit', name, …])
    const onBus = file.startsWith(path.join('daemon', 'model')) ? /(?:\b(?:this|app|inst|instance)\.emit\(|\['emit', )'([^']+)'/g : /\bsupervisor\.(?:emit|on|once)\('([^']+)'/g
    for (const m of text.matchAll(onBus)) found.push({ file, name: m[1] })
    for (const m of text.matchAll(/\bsupervisor\.subscribe\(\{/g)) {
      for (const name of topLevelKeys(text, m.index + m[0].length)) found.push({ file, name })
    }
  }
  return found
}

// The keys of the object literal whose body starts at `from` (nested objects and calls skipped).
function topLevelKeys (text, from) {
  const keys = []
  let depth = 1
  let expectKey = true
  for (let i = from; i < text.length && depth > 0; i++) {
    const c = text[i]
    if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i)
    else if ('({['.includes(c)) depth++
    else if (')}]'.includes(c)) depth--
    else if (depth === 1 && c === ',') expectKey = true
    else if (depth === 1 && expectKey && /\S/.test(c)) {
      const key = /^'?([a-z][\w-]*)'?\s*:/.exec(text.slice(i))
      if (key) keys.push(key[1])
      expectKey = false
    }
  }
  return keys
}

test('the bus refuses a name the catalogue does not list: on emit, on subscribe and on on()', () => {
  const bus = new EventBus()
  assert.throws(() => bus.emit('stauts', {}), { code: 'XPM_ERR_INTERNAL', message: /"stauts" is not in the catalogue/ })
  assert.throws(() => bus.subscribe({ change: () => {}, reloads: () => {} }), { code: 'XPM_ERR_INTERNAL' })
  assert.equal(bus.listenerCount('change'), 0, 'a refused subscribe puts nothing on')
  assert.throws(() => bus.on('exited', () => {}), { code: 'XPM_ERR_INTERNAL' })
  assert.throws(() => bus.once('exited', () => {}), { code: 'XPM_ERR_INTERNAL' })
  for (const name of Object.keys(EVENTS)) bus.emit(name) // every listed name passes
})

test('every event the code emits on the bus or listens to is in the catalogue, and every listed one is emitted', () => {
  const found = namesInCode()
  const unlisted = found.filter((f) => !EVENTS[f.name]).map((f) => `${f.file}: ${f.name}`)
  assert.deepEqual(unlisted, [])
  const emitted = new Set(found.map((f) => f.name))
  assert.deepEqual(Object.keys(EVENTS).filter((n) => !emitted.has(n)), [], 'a listed event nothing emits or hears')
  assert.ok(found.length > 40, `the scan found ${found.length} uses: it still reads the code`)
  const wiring = found.filter((f) => f.file.endsWith('supervisor-wiring.js')).map((f) => f.name)
  assert.deepEqual(wiring.filter((n) => n !== 'change'), ['status', 'intent', 'forked', 'unforked', 'process', 'restart', 'removed'], 'keys after a comment are read')
})

test('the catalogue says for each event who emits it, who hears it and its one payload shape', () => {
  for (const [name, entry] of Object.entries(EVENTS)) {
    assert.ok(entry.emittedBy && entry.heardBy, name)
    assert.ok(entry.payload === null || typeof entry.payload === 'string' || Array.isArray(entry.payload), name)
    assert.ok([true, false, 'maybe'].includes(entry.instance), name)
  }
  assert.deepEqual(payloadProblems('restart', { id: 1, name: 'a', instance: 0 }, {}), ['restart: no "reason"'])
  assert.deepEqual(payloadProblems('restart', { id: 1, name: 'a', instance: 0, reason: 'x', extra: 1 }, {}), ['restart: "extra" is not in its shape'])
  assert.deepEqual(payloadProblems('command', { type: 'stop', instances: [] }, {}), ['command: emitted with an instance'])
})

test('a model driven through its lifecycle emits every payload in its catalogued shape', async (t) => {
  const fake = fakeLauncher()
  const sup = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => sup.close())
  const problems = []
  const seen = new Set()
  const emit = sup.emit
  sup.emit = function (name, payload, instance, ...rest) {
    seen.add(name)
    problems.push(...payloadProblems(name, payload, instance))
    if (rest.length) problems.push(`${name}: more than two arguments`)
    return emit.call(this, name, payload, instance, ...rest)
  }
  const spec = (name, extra) => fakeSpec(name, { killTimeout: 50, restartDelay: 0, ...extra })
  await sup.start([spec('api', { instances: 2 })])
  fake.live()[0].markExited(1, null) // a crash: exit, status waiting, restart
  await waitFor(() => sup.list().every((p) => p.status === 'online') && fake.live().length === 2)
  await sup.restart('api')
  await sup.reload('api')
  await sup.scale('api', '3')
  await sup.scale('api', '1')
  await sup.start([spec('web', { dependsOn: ['db'] })]) // db is not managed: dependency-failed
  await sup.stop('api')
  await sup.delete('all')
  assert.deepEqual(problems, [])
  const missing = Object.keys(EVENTS).filter((n) => !seen.has(n) && !['readiness', 'replace-failed'].includes(n))
  assert.deepEqual(missing, [], 'events the drive did not reach')
})
