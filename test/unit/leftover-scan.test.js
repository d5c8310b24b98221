'use strict'

// The sweep after an exit reads only the launch's candidates (daemon/launchers/leftover-scan.js):
// the children of the daemon's ancestors started since the launch, and their descendants. A fake
// /proc in a temporary folder (stat, task/<pid>/children, environ); no process is started.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { parseChildren, readChildren, ancestry } = require('../../lib/shared/proc-children')
const { candidates, recentOf, createLeftoverScan } = require('../../daemon/launchers/leftover-scan')
const { tempDir } = require('../helpers/tmp')
const { waitFor } = require('../helpers/wait')

// pid → { ppid, start, env: { KEY: value } }; the children files follow from the ppids.
// children: false leaves them out (a kernel without CONFIG_PROC_CHILDREN).
function fakeProc (processes, { children = true } = {}) {
  const root = tempDir('xpm-proc-')
  const kids = {}
  for (const [pid, p] of Object.entries(processes)) (kids[p.ppid] ??= []).push(pid)
  for (const [pid, p] of Object.entries(processes)) {
    fs.mkdirSync(path.join(root, pid, 'task', pid), { recursive: true })
    const fields = ['S', p.ppid, pid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, p.start, 0, 0]
    fs.writeFileSync(path.join(root, pid, 'stat'), `${pid} (a (b) c) ${fields.join(' ')}\n`)
    fs.writeFileSync(path.join(root, pid, 'environ'), Object.entries(p.env || {}).map(([k, v]) => `${k}=${v}`).join('\0') + '\0')
    if (children) fs.writeFileSync(path.join(root, pid, 'task', pid, 'children'), (kids[pid] || []).map((k) => `${k} `).join(''))
  }
  return root
}

const tagged = (tree, launch) => ({ XPM_TREE: tree, XPM_LAUNCH: launch })

// init (1) runs a service (100) with 1,000 workers, a shell (50) that started the daemon (10);
// launch L (200) of the daemon exited at start 1000: its helper (300) and a double-forked daemon
// (400, its child 401) were handed to init; 500 is a process of another slot started later.
function machine () {
  const p = {
    1: { ppid: 0, start: 1 },
    50: { ppid: 1, start: 20 },
    10: { ppid: 50, start: 30 },
    100: { ppid: 1, start: 40 },
    300: { ppid: 1, start: 1001, env: tagged('h/app/0', '10-L') },
    400: { ppid: 1, start: 1002, env: tagged('h/app/0', '10-L') },
    401: { ppid: 400, start: 1003, env: tagged('h/app/0', '10-L') },
    402: { ppid: 400, start: 1003, env: { PATH: '/bin' } }, // cleared its environment: no tag, not ended
    500: { ppid: 1, start: 1004, env: tagged('h/other/0', '10-M') },
    600: { ppid: 10, start: 1005, env: tagged('h/app/0', '10-N') } // the daemon's own child: a live launch
  }
  for (let i = 0; i < 1000; i++) p[2000 + i] = { ppid: 100, start: 50, env: tagged('h/app/0', '10-old') }
  return p
}

test('parseChildren reads the pids of a children file', () => {
  assert.deepEqual(parseChildren('12 345 \n'), [12, 345])
  assert.deepEqual(parseChildren(''), [])
})

test('recentOf keeps the children started at or after the launch, not those gone', () => {
  const startOf = new Map([[1, 99], [2, 100], [3, 101], [4, null]])
  assert.deepEqual(recentOf([1, 2, 3, 4, 5], startOf, 100), [2, 3])
})

test('ancestry and readChildren follow the parent links; a missing children file says null', async () => {
  const root = fakeProc(machine())
  assert.deepEqual(await ancestry(10, { procRoot: root }), [10, 50, 1])
  assert.deepEqual((await readChildren(400, { procRoot: root })).sort(), [401, 402])
  assert.deepEqual(await readChildren(99999, { procRoot: root }), [])
  assert.equal(await readChildren(1, { procRoot: fakeProc({ 1: { ppid: 0, start: 1 } }, { children: false }) }), null)
})

test('the candidates of a launch are what init adopted since it started, and their descendants; not the service\'s 1,000 workers, not the daemon\'s children', async () => {
  const root = fakeProc(machine())
  const found = await candidates({ since: 1000, procRoot: root, selfPid: 10 })
  assert.deepEqual(found.sort((a, b) => a - b), [300, 400, 401, 402, 500])
})

test('a daemon that is the namespace\'s init looks below itself', async () => {
  const root = fakeProc({ 1: { ppid: 0, start: 1 }, 7: { ppid: 1, start: 5 }, 8: { ppid: 7, start: 6 }, 9: { ppid: 1, start: 0 } })
  assert.deepEqual((await candidates({ since: 5, procRoot: root, selfPid: 1 })).sort(), [7, 8])
})

// Counts the environ reads of the sweep.
// The /proc files opened meanwhile whose path matches (lib/shared/proc-read.js opens with fs.open).
function countOpens (t, pattern) {
  const open = fs.open
  const paths = []
  fs.open = function (file, ...rest) {
    if (pattern.test(String(file))) paths.push(String(file))
    return open.call(this, file, ...rest)
  }
  t.after(() => { fs.open = open })
  return paths
}
const countEnvironReads = (t) => countOpens(t, /\/environ$/)

test('the sweep ends the launch\'s tagged leftovers only, and reads the environment of its few candidates', async (t) => {
  const root = fakeProc(machine())
  const environs = countEnvironReads(t)
  const killed = []
  const { noteLaunch, endLeftovers } = createLeftoverScan()
  const launchStat = await noteLaunch('10-L', 200, { procRoot: fakeProc({ 200: { ppid: 10, start: 1000 } }) })
  assert.deepEqual([launchStat.ppid, launchStat.startTime], [10, '1000'], 'the launch\'s stat, for the launcher to hand on')
  const report = await endLeftovers({ tree: 'h/app/0' }, {
    launch: '10-L',
    procRoot: root,
    selfPid: 10,
    filter: (p) => p.launch === '10-L',
    kill: (pid, sig) => { killed.push(pid); if (sig === 'SIGTERM') fs.rmSync(path.join(root, String(pid)), { recursive: true }) },
    killSignal: 'SIGTERM',
    killTimeout: 100,
    pollMs: 5
  })
  assert.deepEqual(report.signalled.sort(), [300, 400, 401])
  assert.deepEqual(killed.sort(), [300, 400, 401])
  assert.ok(environs.length >= 1 && environs.length <= 10, `environ reads: ${environs.length}`)
})

test('no children files: the sweep falls back to the whole table and still finds the leftovers', async () => {
  const p = machine()
  const root = fakeProc(p, { children: false })
  const { endLeftovers } = createLeftoverScan()
  const report = await endLeftovers({ tree: 'h/app/0' }, {
    launch: 'unnoted',
    procRoot: root,
    selfPid: 10,
    filter: (x) => x.launch === '10-L',
    kill: (pid) => fs.rmSync(path.join(root, String(pid)), { recursive: true }),
    killTimeout: 100,
    pollMs: 5
  })
  assert.deepEqual(report.signalled.sort(), [300, 400, 401])
})

test('a sweep that leaves a survivor keeps its start as the slot\'s floor: the next sweep looks back that far (past its pid window), one that ends clean forgets it', async () => {
  const root = fakeProc({ 1: { ppid: 0, start: 1 }, 10: { ppid: 1, start: 2 }, 300: { ppid: 1, start: 1001, env: tagged('h/s/0', '10-A') } })
  // a pid window that holds: 10 forks since the launches, the last pid 900
  fs.writeFileSync(path.join(root, 'stat'), 'cpu 1\nprocesses 1010\n')
  fs.writeFileSync(path.join(root, 'loadavg'), '0.1 0.1 0.1 1/80 900\n')
  fs.mkdirSync(path.join(root, 'sys', 'kernel'), { recursive: true })
  fs.writeFileSync(path.join(root, 'sys', 'kernel', 'pid_max'), '32768\n')
  const { forksSoFar } = require('../../lib/shared/pid-window')
  await waitFor(() => forksSoFar({ procRoot: root }) === 1010, { message: 'the count of forks read' })
  const launchRoot = fakeProc({ 200: { ppid: 10, start: 1000 }, 500: { ppid: 10, start: 2000 } })
  const { noteLaunch, endLeftovers } = createLeftoverScan()
  const sweep = (launch, kill) => endLeftovers({ tree: 'h/s/0' }, { launch, procRoot: root, selfPid: 10, filter: () => true, kill, killTimeout: 20, killWaitMs: 20, pollMs: 5, rounds: 1 })
  noteLaunch('10-A', 200, { procRoot: launchRoot })
  const stubborn = await sweep('10-A', () => {})
  assert.deepEqual(stubborn.survived, [300])
  noteLaunch('10-B', 500, { procRoot: launchRoot }) // pid 300 is outside its window (500, 900]
  const next = await sweep('10-B', (pid) => fs.rmSync(path.join(root, String(pid)), { recursive: true }))
  assert.deepEqual(next.signalled, [300], 'the later launch (start 2000) still ends the survivor of the earlier one (start 1001)')
  assert.equal(next.survived.length, 0)
})

test('pid window: the pids handed out after a launch\'s, while fewer forks than a cycle of pids happened', () => {
  const { parseForks, parseLastPid, inWindow, windowHolds } = require('../../lib/shared/pid-window')
  assert.equal(parseForks('cpu  1 2 3\nintr 5 6\nctxt 9\nbtime 1\nprocesses 1233846\nprocs_running 2\n'), 1233846)
  assert.equal(parseForks('cpu 1\n'), null)
  assert.equal(parseLastPid('0.20 0.18 0.12 1/80 11206\n'), 11206)
  assert.equal(parseLastPid(''), null)
  assert.deepEqual([4999, 5000, 5001, 6000, 6001].map((p) => inWindow(p, 5000, 6000)), [false, false, true, true, false])
  // wrapped: handed out 32000..32767, then 300..400
  assert.deepEqual([31000, 32001, 32767, 1, 350, 400, 401].map((p) => inWindow(p, 32000, 400)), [false, true, true, true, true, true, false])
  assert.equal(windowHolds({ forksThen: 100, forksNow: 100 + 32000, pidMax: 32768 }), true)
  assert.equal(windowHolds({ forksThen: 100, forksNow: 100 + 32467, pidMax: 32768 }), false)
  assert.equal(windowHolds({ forksThen: null, forksNow: 5, pidMax: 32768 }), false)
})

test('with a pid window, only the adopted children handed out after the launch are asked their start time', async (t) => {
  const root = fakeProc(machine())
  const opened = countOpens(t, /\/\d+\/stat$/)
  const found = await candidates({ since: 1000, windowOf: async () => (pid) => pid > 200, procRoot: root, selfPid: 10 })
  assert.deepEqual(found.sort((a, b) => a - b), [300, 400, 401, 402, 500])
  const stats = opened.map((file) => Number(file.split('/').at(-2)))
  assert.ok(stats.includes(300), 'the adopted children after the launch are read')
  assert.deepEqual(stats.filter((pid) => pid === 100), [], 'the service (older pid) is not read')
})
