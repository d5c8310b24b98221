'use strict'

// Issue 14, "Stopping means the whole tree is gone": stop, delete, kill and xpm-runtime's
// shutdown end every descendant of an app (children that ignore the stop signal, a
// double-forked setsid daemon) in fork and cluster mode; xpm-runtime as PID 1 reaps orphans
// (or says it cannot); an app with metrics off still exits when the daemon dies.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, fixture, ROOT } = require('../helpers/xpm')
const { running, childrenOf, describeProc } = require('../helpers/procs')

const RUNTIME = path.join(ROOT, 'bin', 'xpm-runtime')
const KILL_TIMEOUT = 1000
const KINDS = ['idle', 'stubborn', 'daemon']

// "<role> <pid>" lines tree-app.js and its helpers write → { app, idle, stubborn, daemon }
function treeOf (file) {
  let text = ''
  try { text = fs.readFileSync(file, 'utf8') } catch {}
  return Object.fromEntries(text.trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map(([role, pid]) => [role, Number(pid)]))
}

async function treeStarted (file) {
  return waitFor(() => { const t = treeOf(file); return ['app', ...KINDS].every((r) => t[r]) && t }, { timeout: 15000, message: `the tree in ${file}` })
}

function assertAllGone (tree, what) {
  const alive = Object.entries(tree).filter(([, pid]) => running(pid))
  assert.deepEqual(alive.map(([role, pid]) => `${role}: ${describeProc(pid)}`), [], `${what}: every process of the tree is gone`)
}

async function startTreeApp (h, name, mode) {
  const file = path.join(h.home, `${name}.pids`)
  const res = await h.run(['start', fixture('tree-app.js'), '--name', name, '--exec-mode', mode, '--kill-timeout', String(KILL_TIMEOUT)], { env: { TREE_PIDS: file } })
  assert.equal(res.code, 0, res.stderr)
  const tree = await treeStarted(file)
  for (const pid of Object.values(tree)) h.track(pid)
  return tree
}

for (const mode of ['fork', 'cluster']) {
  test(`${mode} mode: stop, delete and kill end the whole tree, setsid daemon and signal-ignoring children included`, async (t) => {
    const h = createHome(t)
    const a = await startTreeApp(h, 'a', mode)
    const b = await startTreeApp(h, 'b', mode)
    const c = await startTreeApp(h, 'c', mode)

    // The command answers once the tree is gone: no waiting needed after it.
    const stop = await h.run(['stop', 'a'])
    assert.equal(stop.code, 0, stop.stderr)
    assertAllGone(a, 'stop')
    assert.ok(running(b.stubborn) && running(c.daemon), 'other apps are not touched')
    assert.equal((await h.jlist()).find((p) => p.name === 'a').status, 'stopped')

    const del = await h.run(['delete', 'b'])
    assert.equal(del.code, 0, del.stderr)
    assertAllGone(b, 'delete')

    const daemon = h.daemonPid()
    const kill = await h.run(['kill'])
    assert.equal(kill.code, 0, kill.stderr)
    await waitFor(() => !running(daemon), { timeout: KILL_TIMEOUT + 10000, message: 'the daemon to exit' })
    assertAllGone(c, 'kill')
  })
}

test('xpm-runtime: SIGTERM ends the whole tree of fork and cluster apps before the runtime exits', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const files = { f: path.join(dir, 'f.pids'), c: path.join(dir, 'c.pids') }
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'f', script: ${JSON.stringify(fixture('tree-app.js'))}, exec_mode: 'fork', kill_timeout: ${KILL_TIMEOUT}, env: { TREE_PIDS: ${JSON.stringify(files.f)} } },
    { name: 'c', script: ${JSON.stringify(fixture('tree-app.js'))}, exec_mode: 'cluster', kill_timeout: ${KILL_TIMEOUT}, env: { TREE_PIDS: ${JSON.stringify(files.c)} } }
  ] }`)
  const rt = spawn(process.execPath, [RUNTIME, 'ecosystem.config.js'], { cwd: dir, env: h.env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  rt.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => rt.once('exit', (code, signal) => resolve({ code, signal })))
  t.after(() => { try { rt.kill('SIGKILL') } catch {} })
  const trees = { f: await treeStarted(files.f), c: await treeStarted(files.c) }
  for (const tree of Object.values(trees)) for (const pid of Object.values(tree)) h.track(pid)
  rt.kill('SIGTERM')
  const exit = await exited
  assert.equal(exit.code, 0, stderr)
  assertAllGone(trees.f, 'runtime shutdown, fork app')
  assertAllGone(trees.c, 'runtime shutdown, cluster app')
})

test('metrics off: fork and cluster apps exit once the daemon is killed with SIGKILL', async (t) => {
  const h = createHome(t)
  for (const [name, mode] of [['f', 'fork'], ['c', 'cluster']]) {
    const res = await h.run(['start', fixture('idle.js'), '--name', name, '--exec-mode', mode, '--no-metrics'])
    assert.equal(res.code, 0, res.stderr)
  }
  const list = await waitFor(async () => { const l = await h.jlist(); return l.every((p) => p.status === 'online') && l }, { message: 'both online' })
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGKILL')
  for (const p of list) {
    await waitFor(() => !running(p.pid), { timeout: 10000, message: `${p.name} (${p.pid}, ${p.name === 'f' ? 'fork' : 'cluster'} mode, metrics off) to exit after the daemon died` })
  }
})

// PID 1 in a PID namespace of its own, as in a container: unshare (util-linux), as root.
const noUnshare = require('../helpers/pid-namespace').pidNamespace().skip ?? false
const hasExecve = typeof process.execve === 'function'

function runtimeAsPid1 (t, h, args, cwd) {
  const u = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, RUNTIME, ...args], { cwd, env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '' }
  u.stdout.on('data', (d) => { out.stdout += d })
  u.stderr.on('data', (d) => { out.stderr += d })
  const exited = new Promise((resolve) => u.once('exit', (code, signal) => resolve({ code, signal })))
  // PID 1 of the namespace, as this (outer) namespace numbers it: unshare's child
  const init = () => childrenOf(u.pid)[0] || 0
  t.after(async () => {
    const pid = init()
    if (pid) try { process.kill(pid, 'SIGKILL') } catch {} // ends the whole namespace
    try { u.kill('SIGKILL') } catch {}
  })
  return { u, out, exited, init }
}

const cmdline = (pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ') } catch { return '' } }
const comm = (pid) => { try { return fs.readFileSync(`/proc/${pid}/comm`, 'latin1').trim() } catch { return '' } }

test(`xpm-runtime as PID 1: ${hasExecve ? 'puts its init in front of itself, which reaps orphans and passes the exit status on' : 'says at start that it runs without an init, and how to fix it'}`, { skip: noUnshare }, async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.copyFileSync(fixture('leaves-orphan.js'), path.join(dir, 'leaves-orphan.js'))
  const rt = runtimeAsPid1(t, h, ['leaves-orphan.js', '--kill-timeout', String(KILL_TIMEOUT)], dir)
  await waitFor(() => /leaves-orphan\[0\]\| up/.test(rt.out.stdout), { timeout: 15000, message: `the app to start; ${JSON.stringify(rt.out)}` })
  const init = rt.init()
  // the orphan: the background sleep, handed to PID 1 when its shell exited
  const orphan = await waitFor(() => childrenOf(init).find((pid) => comm(pid) === 'sleep'), { message: 'the orphan to be handed to PID 1' })

  if (hasExecve) {
    assert.match(cmdline(init), /^\/bin\/sh \S*daemon\/runtime\/init\.sh /, 'PID 1 is xpm\'s init')
    assert.doesNotMatch(rt.out.stderr, /pid1-without-init/)
    process.kill(orphan, 'SIGKILL')
    // reaped: not even a zombie is left
    await waitFor(() => !fs.existsSync(`/proc/${orphan}`), { message: `the orphan ${orphan} to be reaped by PID 1` })
  } else {
    assert.match(rt.out.stderr, /"event":"pid1-without-init".*docker run --init/)
  }
  process.kill(init, 'SIGTERM')
  const exit = await rt.exited
  assert.equal(exit.code, 0, rt.out.stderr)

  // The runtime's own status comes through the init.
  fs.writeFileSync(path.join(dir, 'fail.js'), 'setTimeout(() => process.exit(3), 50)')
  const failing = runtimeAsPid1(t, h, ['fail.js', '--no-autorestart'], dir)
  assert.equal((await failing.exited).code, 3, failing.out.stderr)
})
