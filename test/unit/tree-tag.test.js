'use strict'

// The tree tag (lib/shared/tree-tag.js) and the tag scan (lib/shared/tag-scan.js) against a fake /proc: a
// folder of <pid>/stat and <pid>/environ files. No process is started or signalled.
const test = require('node:test')
const assert = require('node:assert/strict')
const { TREE_VAR, LAUNCH_VAR, homeId, treeTag, newLaunchTag, launchOwner, parseTreeTag, tagsOfEnviron, matches } = require('../../lib/shared/tree-tag')
const { findTagged, endTagged } = require('../../lib/shared/tag-scan')
const { fakeProc, env } = require('../helpers/fake-proc')

test('the tree tag names home, app and instance, and is the same for every launch of the slot', () => {
  const tag = treeTag('/srv/xpm', 'api', 2)
  assert.match(tag, /^[0-9a-f]{16}\/api\/2$/)
  assert.equal(tag, treeTag('/srv/xpm/', 'api', 2), 'one home, however it is spelt')
  assert.notEqual(homeId('/srv/xpm'), homeId('/srv/xpm2'))
  assert.deepEqual(parseTreeTag(tag), { home: homeId('/srv/xpm'), app: 'api', instance: 2 })
  assert.deepEqual(parseTreeTag(`${homeId('/h')}/ns:api.v2/0`), { home: homeId('/h'), app: 'ns:api.v2', instance: 0 })
  for (const bad of [null, '', 'abc', 'abc/api', 'abc/api/x', '/api/1']) assert.equal(parseTreeTag(bad), null, String(bad))
})

test('a launch tag is new for every launch and names the daemon that made it', () => {
  const a = newLaunchTag(4242)
  assert.match(a, /^4242-[0-9a-f]{12}[0-9a-z]+$/)
  assert.notEqual(a, newLaunchTag(4242))
  assert.equal(launchOwner(a), 4242)
  assert.equal(launchOwner('nonsense'), 0)
  assert.equal(launchOwner(null), 0)
})

test('environ parsing finds both tags among NUL-separated entries, and nothing in a look-alike', () => {
  const tree = treeTag('/h', 'web', 0)
  assert.deepEqual(tagsOfEnviron(`PATH=/bin\0${TREE_VAR}=${tree}\0${LAUNCH_VAR}=1-ab\0`), { tree, launch: '1-ab', untracked: false })
  assert.deepEqual(tagsOfEnviron(`${LAUNCH_VAR}=9-cd`), { tree: null, launch: '9-cd', untracked: false })
  assert.deepEqual(tagsOfEnviron(`NOT_${TREE_VAR}=x\0MY${LAUNCH_VAR}=y\0`), { tree: null, launch: null, untracked: false })
  assert.deepEqual(tagsOfEnviron(''), { tree: null, launch: null, untracked: false })
  // a treekill: false tree's mark
  assert.deepEqual(tagsOfEnviron(`${TREE_VAR}=${tree}\0XPM_UNTRACKED=1\0`), { tree, launch: null, untracked: true })
  assert.equal(tagsOfEnviron('XPM_UNTRACKED=10\0').untracked, false)
})

test('matching: by home, app, instance, one instance\'s tree tag, or one launch', () => {
  const id = homeId('/h')
  const p = { tree: `${id}/web/1`, launch: '7-aa' }
  assert.ok(matches(p, { homeId: id }))
  assert.ok(matches(p, { homeId: id, app: 'web' }))
  assert.ok(matches(p, { homeId: id, app: 'web', instance: 1 }))
  assert.ok(!matches(p, { homeId: id, app: 'web', instance: 0 }))
  assert.ok(!matches(p, { homeId: id, app: 'we' }))
  assert.ok(!matches(p, { homeId: homeId('/other') }))
  assert.ok(matches(p, { launch: '7-aa' }))
  assert.ok(!matches(p, { launch: '7-ab' }))
  assert.ok(matches(p, { tree: `${id}/web/1` }), 'one instance by its whole tree tag')
  assert.ok(!matches(p, { tree: `${id}/web/0` }))
  assert.ok(!matches({ tree: null, launch: '7-aa' }, { tree: `${id}/web/1` }))
  assert.ok(!matches(p, {}), 'an empty query matches nothing')
})

test('findTagged: by home, app, instance and launch; untagged and other homes are not found; one read for concurrent askers', async (t) => {
  const proc = fakeProc(t, {
    101: { startTime: '10', environ: env('/h', 'web', 0, '1-a') },
    102: { startTime: '11', environ: env('/h', 'web', 1, '1-b') },
    103: { startTime: '12', environ: env('/h', 'jobs', 0, '1-c') },
    104: { startTime: '13', environ: env('/other', 'web', 0, '2-a') },
    105: { startTime: '14', environ: 'PATH=/bin\0XPM_HOME=/h\0' }
  })
  const pids = async (q) => (await findTagged(q, { scanner: proc.scanner })).map((p) => p.pid)
  assert.deepEqual(await pids({ home: '/h' }), [101, 102, 103])
  assert.deepEqual(await pids({ home: '/h', app: 'web' }), [101, 102])
  assert.deepEqual(await pids({ home: '/h', app: 'web', instance: 1 }), [102])
  assert.deepEqual(await pids({ launch: '1-c' }), [103])
  assert.deepEqual((await findTagged({ home: '/h' }, { scanner: proc.scanner, exclude: [102] })).map((p) => p.pid), [101, 103])
  const [a, b] = [proc.scanner.tagged(), proc.scanner.tagged()]
  assert.equal(a, b, 'a caller that asks during a read gets that read')
})

test('endTagged: the stop signal, SIGKILL after the kill timeout, and never a pid that now names another process', async (t) => {
  const proc = fakeProc(t, {
    201: { startTime: '10', environ: env('/h', 'web', 0, '1-a') }, // ends on SIGINT
    202: { startTime: '11', environ: env('/h', 'web', 0, '1-a') }, // ignores SIGINT
    203: { startTime: '12', environ: env('/h', 'web', 0, '1-a') } // survives even SIGKILL
  })
  const sent = []
  const kill = (pid, sig) => {
    sent.push([pid, sig])
    if ((pid === 201 && sig === 'SIGINT') || (pid === 202 && sig === 'SIGKILL')) proc.remove(pid)
  }
  const report = await endTagged({ launch: '1-a' }, { scanner: proc.scanner, kill, killSignal: 'SIGINT', killTimeout: 30, pollMs: 5, killWaitMs: 30 })
  assert.deepEqual(report.signalled.sort(), [201, 202, 203])
  assert.deepEqual(report.killed.sort(), [202, 203])
  assert.deepEqual(report.survived, [203])
  assert.ok(!sent.some(([pid, sig]) => pid === 201 && sig === 'SIGKILL'))

  // a pid recycled between the read and the signal: its start time differs, nothing is sent
  const recycled = fakeProc(t, { 301: { startTime: '10', environ: env('/h', 'web', 0, '1-z') } })
  const hits = []
  const first = await recycled.scanner.tagged()
  const scanner = { tagged: async () => first, stat: async (pid) => ({ startTime: '99', pid }) }
  const r2 = await endTagged({ launch: '1-z' }, { scanner, kill: (pid, sig) => hits.push([pid, sig]), killTimeout: 10, pollMs: 5, rounds: 1 })
  assert.deepEqual(hits, [])
  assert.deepEqual(r2.killed, [])
})
