'use strict'

// Issue 13: many independent apps start in parallel. 30 fork-mode apps from one ecosystem file
// come online from one `xpm start` that exits 0; `xpm delete all` then leaves nothing.
//
// No timing is asserted (speed is measured in bench/): each app waits, with wait_ready, until all
// 30 have checked in to a shared folder (fixtures/rendezvous.js), so a start that launched them
// one after another could never succeed.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, fixture } = require('../helpers/xpm')
const { childrenOf, appPids, recordChildren } = require('../helpers/procs')
const { quietList, assertTracked, assertNoneAlive } = require('../helpers/overlap')
const { tempDir } = require('../helpers/tmp')

const COUNT = 30

test(`${COUNT} fork-mode apps from one ecosystem file come online from one start, exit 0; delete all leaves nothing`, { timeout: 180000 }, async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = tempDir('xpm-many-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.copyFileSync(fixture('rendezvous.js'), path.join(dir, 'rendezvous.js'))
  const meeting = path.join(dir, 'up')
  fs.mkdirSync(meeting)
  const names = Array.from({ length: COUNT }, (_, i) => `app-${String(i).padStart(2, '0')}`)
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = { apps: ${JSON.stringify(names.map((name) => ({ name, script: './rendezvous.js', wait_ready: true, listen_timeout: '60s', env: { RENDEZVOUS_DIR: meeting, RENDEZVOUS_COUNT: String(COUNT) } })), null, 2)} }\n`)

  assert.equal((await h.run(['ping'])).code, 0)
  const rec = recordChildren(() => h.daemonPid(), { interval: 100 })
  t.after(() => rec.stop())
  const began = Date.now()
  const started = await h.run(['start', file], { timeout: 120000 })
  const took = Date.now() - began
  t.diagnostic(`${COUNT} apps: xpm start took ${took} ms`)
  assert.equal(started.code, 0, `exit ${started.code} after ${took} ms\n${started.stdout.slice(-2000)}\n${started.stderr}`)

  const list = await h.jlist()
  assert.deepEqual(list.map((p) => p.name).sort(), names)
  const notOnline = list.filter((p) => p.status !== 'online')
  assert.deepEqual(notOnline.map((p) => [p.name, p.status]), [], 'every app online right after the start returned')
  assert.ok(list.every((p) => p.mode === 'fork'))
  assertTracked(h.daemonPid(), list)
  assert.equal(childrenOf(h.daemonPid()).length, COUNT)
  rec.add(list.map((p) => p.pid))

  const deleted = await h.run(['delete', 'all'], { timeout: 120000 })
  assert.equal(deleted.code, 0, deleted.stderr)
  const after = await quietList(() => h.jlist())
  assert.deepEqual(after, [])
  rec.stop()
  assert.deepEqual(childrenOf(h.daemonPid()), [], 'daemon children after delete all')
  assertNoneAlive(rec.pids, 'processes of the deleted apps')
  for (const name of names) assert.deepEqual(appPids(h.home, name), [], `processes of ${name}`)
})
