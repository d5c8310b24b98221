'use strict'

// The page's table columns (lib/cli/web/public/columns.js, a browser ES module) with an injected
// clock: which rows read as crash-looping. The module and the quantity.js it imports are loaded as
// the server serves them (assets.js), from a folder marked as ES modules.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { loadAssets } = require('../../lib/cli/web/assets')
const { tempDir } = require('../helpers/tmp')

let loaded = null
function load () {
  if (loaded) return loaded
  const dir = tempDir('xpm-web-modules-')
  const assets = loadAssets()
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n')
  for (const name of ['columns.js', 'quantity.js']) fs.writeFileSync(path.join(dir, name), assets.get(`/${name}`).body)
  loaded = import(pathToFileURL(path.join(dir, 'columns.js')).href)
  return loaded
}

const COLS = ['id', 'name', 'namespace', 'instance', 'mode', 'pid', 'status', 'ready', 'restarts', 'uptime']
const row = (id, restarts, uptime, status = 'online') => [id, 'app', 'default', 0, 'fork', 100 + id, status, null, restarts, uptime]

test('a restart count seen rising twice within two minutes marks the row; quiet again, it is not', async () => {
  let now = 1000000
  const state = { col: Object.fromEntries(COLS.map((c, i) => [c, i])), receivedAt: now }
  const cols = (await load()).makeColumns(state, () => now)
  cols.observe(row(0, 1, 400000))
  cols.observe(row(1, 1, 400000))
  assert.equal(cols.rowClass(row(0, 1, 400000)), '')
  now += 2000
  cols.observe(row(0, 2, 1000))
  assert.equal(cols.crashLooping(row(0, 2, 1000)), false, 'one restart is not a loop')
  now += 2000
  cols.observe(row(0, 3, 1000))
  assert.equal(cols.rowClass(row(0, 3, 1000)), 'crashloop')
  assert.equal(cols.rowClass(row(1, 1, 404000)), '', 'the healthy one')
  now += 121000
  state.receivedAt = now
  assert.equal(cols.rowClass(row(0, 3, 121000)), '', 'no rise in two minutes and up a while')
})

test('a page opened during a loop: many restarts and a short uptime are enough', async () => {
  const now = 5000
  const state = { col: Object.fromEntries(COLS.map((c, i) => [c, i])), receivedAt: now }
  const cols = (await load()).makeColumns(state, () => now)
  assert.equal(cols.crashLooping(row(0, 7, 3000)), true)
  assert.equal(cols.crashLooping(row(0, 7, null, 'waiting restart')), true)
  assert.equal(cols.crashLooping(row(0, 7, 3600000)), false, 'restarted often, long ago')
  assert.equal(cols.crashLooping(row(0, 2, 3000)), false, 'a fresh deploy')
})

test('across hosts: a host column first, rows keyed host/id, a host gone reads unreachable with no uptime', async () => {
  const cols = [...COLS, 'host']
  const down = new Set(['h2'])
  const state = { col: Object.fromEntries(cols.map((c, i) => [c, i])), receivedAt: 0, fleet: true, unreachable: (h) => down.has(h) }
  const c = (await load()).makeColumns(state, () => 5000)
  const a = [...row(0, 0, 1000), 'h1']
  const b = [...row(0, 0, 1000), 'h2']
  assert.equal(c.COLUMNS[0].key, 'host')
  assert.deepEqual([c.key(a), c.key(b)], ['h1/0', 'h2/0'])
  assert.deepEqual([c.shownStatus(a), c.shownStatus(b)], ['online', 'unreachable'])
  assert.deepEqual([c.rowClass(a), c.rowClass(b)], ['', 'unreachable'])
  const uptime = c.COLUMNS.find((col) => col.key === 'uptime')
  assert.deepEqual([uptime.text(a), uptime.text(b)], ['6s', '-'])
})
