'use strict'

// docs/protocol.md is kept equal to the code, as docs/errors.md is (issue 37): its Methods table
// names every method of daemon/methods.js and no other; each method's documented params are the
// ones its handler reads (the handlers run on a real Supervisor with a launcher that forks
// nothing, their params watched by a Proxy); and the error codes the socket's handlers throw are
// the ones the page names, all in the catalogue.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createMethods } = require('../../daemon/methods')
const { Supervisor } = require('../../daemon/supervisor')
const { CODES } = require('../../lib/shared/errors')
const { normalizeApp } = require('../../lib/shared/config')
const { fakeLauncher } = require('../helpers/fake-launcher')

const ROOT = path.join(__dirname, '..', '..')
const doc = fs.readFileSync(path.join(ROOT, 'docs', 'protocol.md'), 'utf8')

// method → its params as the Methods table lists them (`{target, specs?}`: target, specs; `–`: none)
function documentedMethods () {
  const start = doc.indexOf('## Methods')
  const section = doc.slice(start, doc.indexOf('\n## ', start + 3))
  const out = {}
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const [, names, params] = row.split('|')
    const keys = topLevelKeys(params)
    for (const m of names.matchAll(/`(\w+)`/g)) out[m[1]] = keys
  }
  return out
}

function topLevelKeys (cell) {
  const open = cell.indexOf('`{')
  if (open === -1) return []
  let depth = 0
  let inner = ''
  for (const ch of cell.slice(open + 1)) {
    if (ch === '{' || ch === '[') depth++
    if (ch === '}' || ch === ']') depth--
    if (depth === 0) break
    inner += ch
  }
  const keys = []
  depth = 0
  let part = ''
  for (const ch of inner.slice(1) + ',') {
    if (ch === '{' || ch === '[') depth++
    if (ch === '}' || ch === ']') depth--
    if (ch === ',' && depth === 0) {
      keys.push(part.trim().match(/^(\w+)/)[1])
      part = ''
    } else part += ch
  }
  return keys.sort()
}

// Stands in for the parts a handler talks to past its params (the log sink, metrics, journal,
// persistence, a connection): every property is a function that returns the stand-in again.
function standIn () {
  const fn = function () { return proxy }
  const proxy = new Proxy(fn, {
    get: (target, key) => key === 'then' ? undefined : key === Symbol.iterator ? [][Symbol.iterator].bind([]) : proxy,
    apply: () => proxy
  })
  return proxy
}

// Valid params of each method, every documented one present, so a handler reads them all.
function samples () {
  const dir = path.join(ROOT, 'test', 'fixtures')
  const spec = (name) => normalizeApp({ name, script: path.join(dir, 'idle.js'), cwd: dir }, { env: { PATH: process.env.PATH }, cpus: 2 })
  return {
    ping: {},
    start: { specs: [spec('web')], force: false, fromScript: [] },
    startTarget: { target: 'api' },
    stop: { target: 'api' },
    delete: { target: 'web' },
    restart: { target: 'api', specs: [spec('api')], rename: undefined },
    reload: { target: 'api', specs: [spec('api')] },
    startOrRestart: { mode: 'restart', specs: [spec('api')], target: 'api', targetSpecs: [spec('api')] },
    list: { fields: ['name'] },
    show: { target: 'api', fields: ['name'] },
    logs: { target: 'api', lines: 1, streams: ['out'], follow: false, perFile: true },
    subscribe: { topics: ['processes'], fields: ['name'], ids: [0], changes: true },
    watch: { ids: [0] },
    flush: { target: 'api' },
    reloadLogs: {},
    scale: { target: undefined, name: 'api', change: '1' }, // name: the older key, read when target is absent
    sendSignal: { signal: 'SIGUSR2', target: 'api' },
    reset: { target: 'api' },
    why: { target: 'api', limit: 5 },
    save: { force: true },
    resurrect: {},
    prepareUpdate: {},
    ackRestored: {},
    kill: {}
  }
}

test('docs/protocol.md lists every method of daemon/methods.js with the params its handler reads', async (t) => {
  const supervisor = new Supervisor({ launcher: fakeLauncher().launcherFor })
  t.after(() => supervisor.beginClose?.())
  await supervisor.start([normalizeApp({ name: 'api', script: path.join(ROOT, 'test', 'fixtures', 'idle.js') }, { env: { PATH: process.env.PATH }, cpus: 2 })])
  const part = standIn()
  const methods = createMethods({ supervisor, logSink: part, metrics: part, shutdown () {}, version: 'x', persistence: { methods: part, flush: async () => {} }, journal: part, phase: null, otel: null })
  const documented = documentedMethods()
  assert.deepEqual(Object.keys(documented).sort(), Object.keys(methods).sort(), 'the Methods table names the methods of daemon/methods.js')

  const given = samples()
  const read = {}
  for (const name of Object.keys(methods)) {
    assert.ok(given[name], `a sample of ${name}'s params in this test`)
    const keys = new Set()
    const params = new Proxy(given[name], { get: (target, key) => { if (typeof key === 'string') keys.add(key); return target[key] } })
    const call = Promise.resolve().then(() => methods[name](params, part)).catch(() => {})
    await Promise.race([call, new Promise((resolve) => setTimeout(resolve, 500).unref())])
    read[name] = [...keys].sort()
  }
  assert.deepEqual(read, documented)
})

test('the error codes the socket\'s handlers throw are the ones docs/protocol.md names, all in the catalogue', () => {
  const files = ['daemon/server.js', 'daemon/methods.js', 'daemon/check-specs.js', 'daemon/journal/methods.js', 'daemon/persistence/methods.js',
    ...fs.readdirSync(path.join(ROOT, 'daemon', 'commands')).map((f) => `daemon/commands/${f}`)]
  const thrown = new Set(files.flatMap((f) => [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/XpmError\(\s*'(XPM_ERR_[A-Z_]+)'/g)].map((m) => m[1])))
  const named = new Set([...doc.matchAll(/XPM_ERR_[A-Z_]+/g)].map((m) => m[0]))
  assert.deepEqual([...thrown].filter((c) => !named.has(c)), [], 'thrown by a handler, not in docs/protocol.md')
  assert.deepEqual([...named].filter((c) => !CODES[c]), [], 'named in docs/protocol.md, not in the catalogue')
})
