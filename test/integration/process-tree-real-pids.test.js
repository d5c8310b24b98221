'use strict'

// The process tree a stop ends (daemon/launchers/process-tree.js), on real processes: found by
// parent links and by the environment tag, killed whole (the leader's group too, after the
// leader has exited), and never a pid that now names another process.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { ProcessTree, newTag, TAG_VAR } = require('../../daemon/launchers/process-tree')
const { waitFor } = require('../helpers/wait')
const { running } = require('../helpers/procs')
const { tempDir } = require('../helpers/tmp')

const FIXTURES = path.join(__dirname, '..', 'fixtures')
const linux = process.platform === 'linux' && fs.existsSync('/proc/self/stat')

// Starts tree-app.js as our child; resolves once every process of its tree noted its pid.
async function startTree (t, { kinds = 'idle,stubborn,daemon', tag = newTag(), detached = false } = {}) {
  const dir = tempDir('xpm-tree-')
  const file = path.join(dir, 'pids')
  fs.writeFileSync(file, '')
  const env = { ...process.env, TREE_PIDS: file, TREE_KINDS: kinds, [TAG_VAR]: tag }
  delete env.NODE_TEST_CONTEXT
  const child = spawn(process.execPath, [path.join(FIXTURES, 'tree-app.js')], { env, stdio: 'ignore', detached })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const roles = () => Object.fromEntries(fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map(([r, p]) => [r, Number(p)]))
  const want = kinds.split(',').length + 1
  const pids = await waitFor(() => { const r = roles(); return Object.keys(r).length === want && r }, { message: 'the tree to start' })
  t.after(() => {
    for (const pid of Object.values(roles())) try { process.kill(pid, 'SIGKILL') } catch {}
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const tree = (opts = {}) => new ProcessTree({ leaderPid: () => (child.exitCode === null && child.signalCode === null ? child.pid : 0), tag, ...opts })
  return { child, pids, exited, tree }
}

test('the tree holds the children by parent link, and a double-forked setsid daemon by its tag', { skip: !linux && 'needs Linux /proc' }, async (t) => {
  const { pids, tree } = await startTree(t)
  const tagged = tree()
  await tagged.collect()
  assert.deepEqual(tagged.pids(), [pids.idle, pids.stubborn, pids.daemon].sort((a, b) => a - b))
  const untagged = tree({ tag: null })
  await untagged.collect()
  assert.deepEqual(untagged.pids(), [pids.idle, pids.stubborn].sort((a, b) => a - b), 'without the tag, the daemon has no link to the app')
})

test('after the leader exits, its orphans are still found; killAll ends every one, even those that ignore the stop signals', { skip: !linux && 'needs Linux /proc' }, async (t) => {
  const { child, pids, exited, tree } = await startTree(t)
  const tr = tree()
  await tr.collect()
  child.kill('SIGINT')
  await exited
  await tr.collect()
  assert.deepEqual(tr.pids(), [pids.idle, pids.stubborn, pids.daemon].sort((a, b) => a - b))
  assert.equal(await tr.signal('SIGTERM'), 3)
  // the idle one dies of it; the two others ignore it
  await waitFor(() => !running(pids.idle), { message: 'the idle child to end on SIGTERM' })
  assert.equal(await tr.settled(0), false)
  assert.ok(running(pids.stubborn) && running(pids.daemon))
  assert.equal(await tr.killAll(), true)
  for (const role of ['idle', 'stubborn', 'daemon']) assert.equal(running(pids[role]), false, `${role} ${pids[role]} is gone`)
})

test("fork mode: the leader's group is killed after the leader exited, reaching a member that has neither link nor tag", { skip: !linux && 'needs Linux /proc' }, async (t) => {
  // The leader leads its own group (detached, as fork mode starts apps). Its `untagged` child
  // has an environment without the tag, and the tree is first read after the leader exited (as
  // for a child started after the first read): only the group reaches it, and the group is
  // killed because a known member is still in it.
  const { child, pids, exited, tree } = await startTree(t, { kinds: 'stubborn,untagged', detached: true })
  const tr = tree({ group: child.pid })
  child.kill('SIGINT')
  await exited
  await tr.collect()
  assert.deepEqual(tr.pids(), [pids.stubborn], 'the untagged orphan is not found by itself')
  assert.equal(await tr.killAll(), true)
  await waitFor(() => !running(pids.untagged), { message: `the untagged group member ${pids.untagged} to die` })
  assert.equal(running(pids.stubborn), false)
})

test('a pid is signalled only while it has the start time it was found with', async () => {
  // A fake table: pid 500 is a child of the leader (400) when read, then the pid names another
  // process (another start time) by the time the signal goes.
  let startOf500 = '1000'
  const table = () => {
    const stats = new Map([[400, { state: 'S', ppid: 1, pgrp: 400, startTime: '900' }], [500, { state: 'S', ppid: 400, pgrp: 400, startTime: startOf500 }]])
    const children = new Map([[1, [400]], [400, [500]]])
    return { stats, children, hasEnv: async () => false }
  }
  const killed = []
  const scanner = { table: async () => table(), stat: async (pid) => table().stats.get(pid) ?? null }
  const tr = new ProcessTree({ leaderPid: () => 400, tag: null, scanner, kill: (pid, sig) => killed.push([pid, sig]), selfPid: 1 })
  await tr.collect()
  assert.deepEqual(tr.pids(), [500])
  startOf500 = '2000'
  assert.equal(await tr.signal('SIGTERM'), 0)
  assert.deepEqual(killed, [])
  assert.equal(await tr.prune(), 0, 'a member whose pid now has another start time has ended')
})
