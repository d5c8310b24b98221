'use strict'

// readAdopted (lib/shared/proc-children.js): what a daemon's ancestor adopted, from its leader
// thread's children file while the leader lives, from every thread's otherwise. A fake /proc in
// a temporary folder (real orphans: test/integration/proc-read-real.test.js).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readAdopted, readChildren, leaderLives } = require('../../lib/shared/proc-children')
const { tempDir } = require('../helpers/tmp')

// pid 1 with threads 1 (the leader) and 5; the leader adopted 7, thread 5 forked 9.
function fakeInit ({ leader = 'S', flags = 4194560, leaderStat = true } = {}) {
  const root = tempDir('xpm-proc-adopted-')
  const stat = (state, f) => `1 (init) ${state} 0 1 1 0 -1 ${f} ${Array(40).fill(0).join(' ')}\n`
  for (const [tid, kids] of [[1, '7 '], [5, '9 ']]) {
    const dir = path.join(root, '1', 'task', String(tid))
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'children'), kids)
    if (tid !== 1 || leaderStat) fs.writeFileSync(path.join(dir, 'stat'), stat(tid === 1 ? leader : 'S', tid === 1 ? flags : 4194368))
  }
  return root
}

test('a live leader\'s children file is all an ancestor adopted', async () => {
  const root = fakeInit()
  assert.deepEqual(await readAdopted(1, { procRoot: root }), [7])
  assert.deepEqual((await readChildren(1, { procRoot: root })).sort(), [7, 9])
})

test('a leader that exited, is exiting or cannot be read: every thread is read', async () => {
  for (const opts of [{ leader: 'Z' }, { leader: 'X' }, { flags: 4194560 | 0x4 }, { leaderStat: false }]) {
    assert.deepEqual((await readAdopted(1, { procRoot: fakeInit(opts) })).sort(), [7, 9], JSON.stringify(opts))
  }
  assert.equal(leaderLives(null), false)
  assert.equal(leaderLives({ state: 'S', flags: NaN }), false)
})

test('a gone pid has nothing; a kernel without children files says null, as readChildren', async () => {
  const root = fakeInit()
  assert.deepEqual(await readAdopted(99999, { procRoot: root }), [])
  fs.rmSync(path.join(root, '1', 'task', '1', 'children'))
  fs.rmSync(path.join(root, '1', 'task', '5', 'children'))
  assert.equal(await readAdopted(1, { procRoot: root }), null)
})
