'use strict'

// The trees of many stops share one read of the process table, and a launch tag is looked up in
// an index of it (daemon/launchers/process-tree.js): each process's environment is read once per
// table, whichever tree asks. A fake /proc in a temporary folder; no process is started.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ProcessTree, createScanner, launchTagOf } = require('../../daemon/launchers/process-tree')
const { tempDir } = require('../helpers/tmp')

// pid → { ppid, pgrp, start, env: { KEY: value } }
function fakeProc (processes) {
  const root = tempDir('xpm-proc-')
  for (const [pid, p] of Object.entries(processes)) {
    fs.mkdirSync(path.join(root, pid))
    const fields = ['S', p.ppid, p.pgrp ?? pid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, p.start, 0, 0]
    fs.writeFileSync(path.join(root, pid, 'stat'), `${pid} (node) ${fields.join(' ')}\n`)
    fs.writeFileSync(path.join(root, pid, 'environ'), Object.entries(p.env || {}).map(([k, v]) => `${k}=${v}`).join('\0') + '\0')
  }
  return root
}

test('launchTagOf finds XPM_LAUNCH first, in the middle or last, and nothing in a look-alike', () => {
  assert.equal(launchTagOf('XPM_LAUNCH=1-a\0PATH=/bin\0'), '1-a')
  assert.equal(launchTagOf('PATH=/bin\0XPM_LAUNCH=1-b\0HOME=/\0'), '1-b')
  assert.equal(launchTagOf('PATH=/bin\0XPM_LAUNCH=1-c'), '1-c')
  assert.equal(launchTagOf('MY_XPM_LAUNCH=1-d\0PATH=/bin\0'), null)
  assert.equal(launchTagOf(''), null)
})

test('many trees collected at once: each finds its own descendants and its tagged escapees, not the others\'', async (t) => {
  const processes = { 1: { ppid: 0, start: 1 }, 10: { ppid: 1, start: 100 } } // init, the daemon
  const apps = 50
  for (let i = 0; i < apps; i++) {
    const leader = 1000 + i * 10
    const tag = `10-t${i}`
    processes[leader] = { ppid: 10, start: 200 + i, env: { XPM_LAUNCH: tag } }
    processes[leader + 1] = { ppid: leader, start: 300 + i, env: { XPM_LAUNCH: tag } } // a child
    processes[leader + 2] = { ppid: 1, start: 400 + i, env: { PATH: '/bin', XPM_LAUNCH: tag } } // escaped by setsid
    processes[leader + 3] = { ppid: 1, start: 500 + i, env: { XPM_LAUNCH: `10-t${i}x` } } // a look-alike tag
  }
  const root = fakeProc(processes)
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  const scanner = createScanner({ procRoot: root })
  let tables = 0
  const table = scanner.table
  scanner.table = () => { tables++; return table() }
  const trees = Array.from({ length: apps }, (_, i) => new ProcessTree({ leaderPid: () => 1000 + i * 10, tag: `10-t${i}`, scanner, selfPid: 10 }))
  await Promise.all(trees.map((tree) => tree.collect()))
  trees.forEach((tree, i) => assert.deepEqual(tree.pids(), [1000 + i * 10 + 1, 1000 + i * 10 + 2], `tree ${i}`))
  assert.equal(tables, apps, 'each tree asked for the table')

  // after the leader has exited: its child and the escapee are still found by their tag
  delete processes[1000]
  fs.rmSync(path.join(root, '1000'), { recursive: true })
  const orphan = trees[0]
  await orphan.collect()
  assert.deepEqual(orphan.pids(), [1001, 1002])
})

test('a tree whose leader is unknown (since -Infinity) asking while a later one\'s read is in flight finds its older escapee too', async (t) => {
  const root = fakeProc({
    1: { ppid: 0, start: 1 },
    10: { ppid: 1, start: 100 },
    500: { ppid: 10, start: 500, env: { XPM_LAUNCH: '10-a' } },
    600: { ppid: 1, start: 600, env: { XPM_LAUNCH: '10-a' } },
    200: { ppid: 1, start: 200, env: { XPM_LAUNCH: '10-b' } }, // b's escapee, older than a's leader
    700: { ppid: 1, start: 700, env: { XPM_LAUNCH: '10-b' } }
  })
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  const scanner = createScanner({ procRoot: root })
  const a = new ProcessTree({ leaderPid: () => 500, tag: '10-a', scanner, selfPid: 10 })
  const b = new ProcessTree({ leaderPid: () => 0, tag: '10-b', scanner, selfPid: 10 }) // its leader already reaped
  const again = new ProcessTree({ leaderPid: () => 500, tag: '10-a', scanner, selfPid: 10 })
  await Promise.all([a.collect(), b.collect(), again.collect()])
  assert.deepEqual([a.pids(), b.pids(), again.pids()], [[600], [200, 700], [600]])
})
