'use strict'

// Issue 38: the sweep after an exit nobody asked for reads the few processes a launch may have
// left (daemon/launchers/leftover-scan.js), not the environment of every process on the machine,
// and still ends a grandchild that init adopted, while a process of another slot, another home
// or with look-alike variables is left alone.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { EventEmitter } = require('node:events')
const { createHome, waitFor, fixture } = require('../helpers/xpm')
const { running, describeProc } = require('../helpers/procs')
const { ProcessHandle } = require('../../daemon/launchers/handle')
const { treeTag } = require('../../lib/shared/tree-tag')

const linux = process.platform === 'linux'
const KILL_TIMEOUT = 1000

const killAll = (pids) => { for (const pid of pids) try { process.kill(pid, 'SIGKILL') } catch {} }

// A `sleep 1000` that init adopts (its shell exits at once), with `env`: → its pid.
async function orphanSleep (env) {
  const shell = spawn('sh', ['-c', 'sleep 1000 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true, env: { PATH: process.env.PATH, ...env } })
  let out = ''
  shell.stdout.on('data', (d) => { out += d })
  await new Promise((resolve) => shell.once('exit', resolve))
  return Number(out.trim())
}

test('the sweep of an exit reads the environment of a few candidates, not of 200 unrelated processes', { skip: !linux && 'needs Linux /proc' }, async (t) => {
  const sleeps = []
  t.after(() => killAll(sleeps.map((c) => c.pid)))
  const leader = spawn('sleep', ['30'], { stdio: 'ignore' })
  sleeps.push(leader)
  await new Promise((resolve) => leader.once('spawn', resolve))
  const leftovers = require('../../daemon/launchers/leftover-scan').createLeftoverScan()
  leftovers.noteLaunch('1-sweep-cost-test', leader.pid)
  for (let i = 0; i < 200; i++) sleeps.push(spawn('sleep', ['30'], { stdio: 'ignore' }))
  await Promise.all(sleeps.map((c) => new Promise((resolve) => (c.pid ? resolve() : c.once('spawn', resolve)))))

  const open = fs.open // lib/shared/proc-read.js opens each /proc file with fs.open
  const environs = []
  fs.open = function (file, ...rest) {
    if (String(file).endsWith('/environ')) environs.push(String(file))
    return open.call(this, file, ...rest)
  }
  t.after(() => { fs.open = open })
  const handle = new ProcessHandle({ child: Object.assign(new EventEmitter(), { pid: leader.pid }), tag: '1-sweep-cost-test', treeTag: 'no-such-home/app/0', leftovers })
  handle.markExited(1, null)
  const report = await handle.sweepLeftovers()
  assert.deepEqual(report?.signalled, [])
  assert.ok(environs.length < 50, `the sweep read ${environs.length} environments`)
})

test('a crashing app\'s double-forked grandchild, adopted by init, is ended; look-alikes of other slots and homes are not', { skip: !linux && 'needs Linux /proc' }, async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'helpers')
  const grandchildren = () => {
    let text = ''
    try { text = fs.readFileSync(file, 'utf8') } catch {}
    return text.trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map(([app, , pid]) => ({ app: Number(app), pid: Number(pid) }))
  }
  const decoys = []
  t.after(() => killAll([...decoys, ...grandchildren().map((x) => x.pid)]))
  const res = await h.run(['start', fixture('double-forks-then-crashes.js'), '--name', 'dbl', '--min-uptime', '100',
    '--max-restarts', '1000', '--kill-timeout', String(KILL_TIMEOUT)], { env: { HELPER_PIDS: file } })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(() => grandchildren().length >= 1, { timeout: 15000, message: 'the first grandchild' })
  // started while launches run: candidates of the next sweeps by their start and their parent (init)
  const mine = treeTag(h.home, 'dbl', 0)
  decoys.push(await orphanSleep({ XPM_TREE: treeTag(h.home, 'dbl', 1), XPM_LAUNCH: '1-x' })) // another instance
  decoys.push(await orphanSleep({ XPM_TREE: treeTag(path.join(h.home, 'elsewhere'), 'dbl', 0), XPM_LAUNCH: '1-x' })) // another home
  decoys.push(await orphanSleep({ MY_XPM_TREE: mine, XPM_TREE_OLD: mine, XPM_LAUNCHER: '1-x' })) // look-alike names
  await waitFor(() => new Set(grandchildren().map((x) => x.app)).size >= 4, { timeout: 20000, message: 'four launches' })
  const old = grandchildren().slice(0, 3).map((x) => x.pid)
  await waitFor(() => old.filter(running).length === 0, {
    timeout: KILL_TIMEOUT + 8000,
    message: `the grandchildren of exited launches to end: ${old.filter(running).map(describeProc).join('; ')}`
  })
  assert.deepEqual(decoys.filter((pid) => !running(pid)).map(describeProc), [], 'every look-alike runs on')
  const stop = await h.run(['stop', 'dbl'])
  assert.equal(stop.code, 0, stop.stderr)
  await waitFor(() => grandchildren().map((x) => x.pid).filter(running).length === 0, { timeout: KILL_TIMEOUT + 8000, message: 'every grandchild to end after stop' })
  assert.equal(decoys.filter(running).length, 3, 'the look-alikes outlive the stop')
})
