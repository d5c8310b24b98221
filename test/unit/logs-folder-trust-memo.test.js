'use strict'

// Opens of many log files in one folder share one walk of the folder chain, and a pass is
// remembered briefly (daemon/logs/folder-trust.js); a refusal never is. Counted stat calls on a
// fake fs.promises, injected clock: no process, no real folder.
const test = require('node:test')
const assert = require('node:assert/strict')
const { createFolderTrust, PASS_MEMORY_MS } = require('../../daemon/logs/folder-trust')

function fakeFs (modeOf) {
  const calls = { stat: 0 }
  const fsp = {
    async stat (p) { calls.stat++; return { uid: 1000, mode: 0o40000 | modeOf(p), isDirectory: () => true } },
    async realpath (p) { return p },
    async mkdir () {}
  }
  return { fsp, calls }
}

test('overlapping checks of one folder share a walk; a pass is remembered for PASS_MEMORY_MS, then walked again', async () => {
  const { fsp, calls } = fakeFs(() => 0o755)
  let now = 0
  const trust = createFolderTrust({ fsp, me: 1000, now: () => now })
  await Promise.all(Array.from({ length: 100 }, (_, i) => trust(`/srv/app/logs/a${i}-out.log`)))
  const oneWalk = calls.stat
  assert.ok(oneWalk > 0 && oneWalk <= 8, `one walk, not 100 (${oneWalk} stat calls)`)
  now = PASS_MEMORY_MS - 1
  await trust('/srv/app/logs/b-out.log')
  assert.equal(calls.stat, oneWalk, 'remembered')
  now = PASS_MEMORY_MS
  await trust('/srv/app/logs/b-out.log')
  assert.equal(calls.stat, 2 * oneWalk, 'walked again once the memory ran out')
})

test('a refusal is never remembered: the folder made safe passes at the next open', async () => {
  let mode = 0o777
  const { fsp } = fakeFs((p) => (p === '/srv/shared' ? mode : 0o755))
  const trust = createFolderTrust({ fsp, me: 1000, now: () => 0 })
  await assert.rejects(trust('/srv/shared/a.log'), { code: 'XPM_ERR_FILE_UNSAFE' })
  await assert.rejects(trust('/srv/shared/b.log'), { code: 'XPM_ERR_FILE_UNSAFE' })
  mode = 0o755
  assert.equal(await trust('/srv/shared/c.log'), '/srv/shared')
})
