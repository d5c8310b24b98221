'use strict'

// Issue 22, process trees that outlive nothing: what an app starts is ended when the app's
// process exits on its own (crash loops and self-daemonizing apps leak nothing), the next daemon
// after a daemon crash ends the old processes and their children before it restores anything,
// and `xpm kill` ends the apps when the daemon is gone or does not answer.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture } = require('../helpers/xpm')
const { running, describeProc } = require('../helpers/procs')

const KILL_TIMEOUT = 1000

// "<app pid> <kind> <helper pid>" lines of spawns-helpers-then-exits.js → [{ app, kind, pid }]
function helpersOf (file) {
  let text = ''
  try { text = fs.readFileSync(file, 'utf8') } catch {}
  return text.trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map(([app, kind, pid]) => ({ app: Number(app), kind, pid: Number(pid) }))
}

// "<role> <pid>" lines of tree-app.js → [[role, pid]], in order
function linesOf (file) {
  let text = ''
  try { text = fs.readFileSync(file, 'utf8') } catch {}
  return text.trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map(([role, pid]) => [role, Number(pid)])
}

function alive (pids) {
  return pids.filter(running)
}

function killAll (pids) {
  for (const pid of pids) try { process.kill(pid, 'SIGKILL') } catch {}
}

for (const [mode, how] of [['fork', 'crash'], ['cluster', 'zero']]) {
  const what = how === 'crash' ? 'an app that starts helpers and crashes' : 'a self-daemonizing app (detached child, exit 0)'
  test(`${mode} mode, ${what}: restarts leave no helper behind, and stop ends the last ones`, async (t) => {
    const h = createHome(t)
    const file = path.join(h.home, 'helpers')
    t.after(() => killAll(helpersOf(file).map((x) => x.pid)))
    const res = await h.run(['start', fixture('spawns-helpers-then-exits.js'), '--name', 'loop', '--exec-mode', mode,
      '--min-uptime', '100', '--max-restarts', '1000', '--kill-timeout', String(KILL_TIMEOUT)], { env: { HELPER_PIDS: file, EXIT_HOW: how } })
    assert.equal(res.code, 0, res.stderr)
    // four launches, each with its two helpers (a plain child and a setsid one)
    const launches = () => [...new Set(helpersOf(file).map((x) => x.app))]
    await waitFor(() => launches().length >= 4, { timeout: 20000, message: 'four launches' })
    const firstThree = launches().slice(0, 3)
    const old = helpersOf(file).filter((x) => firstThree.includes(x.app))
    assert.equal(old.length, 6)
    await waitFor(() => alive(old.map((x) => x.pid)).length === 0, {
      timeout: KILL_TIMEOUT + 8000,
      message: `the helpers of exited launches to end: ${alive(old.map((x) => x.pid)).map(describeProc).join('; ')}`
    })

    const stop = await h.run(['stop', 'loop'])
    assert.equal(stop.code, 0, stop.stderr)
    const all = () => helpersOf(file).map((x) => x.pid)
    await waitFor(() => alive(all()).length === 0, { timeout: KILL_TIMEOUT + 8000, message: `every helper to end after stop: ${alive(all()).map(describeProc).join('; ')}` })
  })
}

test('treekill: false keeps what an exited process started', async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'helpers')
  t.after(() => killAll(helpersOf(file).map((x) => x.pid)))
  fs.writeFileSync(path.join(h.home, 'eco.config.js'), `module.exports = { apps: [{ name: 'keep', script: ${JSON.stringify(fixture('spawns-helpers-then-exits.js'))},
    treekill: false, autorestart: false, kill_timeout: ${KILL_TIMEOUT}, env: { HELPER_PIDS: ${JSON.stringify(file)}, EXIT_HOW: 'zero', EXIT_AFTER_MS: '50' } }] }`)
  const res = await h.run(['start', path.join(h.home, 'eco.config.js')])
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => (await h.jlist()).every((p) => p.status === 'stopped'), { timeout: 15000, message: 'the app to exit' })
  const helpers = helpersOf(file)
  assert.equal(helpers.length, 2)
  // not a synchronization: a window in which the sweep of an exit (it starts at once) would have
  // signalled them
  await new Promise((resolve) => setTimeout(resolve, 500))
  assert.deepEqual(alive(helpers.map((x) => x.pid)), helpers.map((x) => x.pid).sort((a, b) => a - b), 'the helpers run on')
})

test('daemon SIGKILL, then a command: the next daemon ends the old apps and their children (fork and cluster) before it restores them', async (t) => {
  const h = createHome(t)
  const gone = path.join(h.home, 'must-be-gone')
  const files = { f: path.join(h.home, 'f.pids'), c: path.join(h.home, 'c.pids') }
  t.after(() => killAll(Object.values(files).flatMap((f) => linesOf(f).map(([, pid]) => pid))))
  for (const [name, mode] of [['f', 'fork'], ['c', 'cluster']]) {
    const res = await h.run(['start', fixture('tree-app.js'), '--name', name, '--exec-mode', mode, '--kill-timeout', String(KILL_TIMEOUT)],
      { env: { TREE_PIDS: files[name], TREE_MUST_BE_GONE: gone } })
    assert.equal(res.code, 0, res.stderr)
  }
  const tree = (f) => linesOf(f).filter(([role]) => role !== 'alive-at-start')
  const old = await waitFor(() => {
    const all = Object.values(files).map(tree)
    return all.every((lines) => lines.length === 4) && all.flat().map(([, pid]) => pid)
  }, { timeout: 15000, message: 'both trees started' })
  fs.writeFileSync(gone, old.join('\n') + '\n')
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGKILL')
  await waitFor(() => !running(daemon), { message: 'the daemon to die' })

  const list = await h.run(['jlist']) // starts a daemon, which recovers
  assert.equal(list.code, 0, list.stderr)
  await waitFor(() => Object.values(files).every((f) => linesOf(f).filter(([role]) => role === 'app').length === 2), { timeout: 20000, message: 'both apps restored' })
  await waitFor(() => Object.values(files).every((f) => tree(f).length === 8), { timeout: 10000, message: 'both new trees started' })
  for (const f of Object.values(files)) {
    assert.deepEqual(linesOf(f).filter(([role]) => role === 'alive-at-start').map(([, pid]) => describeProc(pid)), [], `${path.basename(f)}: no old process ran when the restored copy started`)
  }
  assert.deepEqual(alive(old).map(describeProc), [], 'every old process is gone')
  const apps = await h.jlist()
  assert.deepEqual(apps.map((p) => [p.name, p.status]).sort(), [['c', 'online'], ['f', 'online']])
})

test('xpm kill after a daemon crash ends the orphaned apps and their children, reports it, and nothing is restored', async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'a.pids')
  t.after(() => killAll(linesOf(file).map(([, pid]) => pid)))
  const res = await h.run(['start', fixture('tree-app.js'), '--name', 'a', '--kill-timeout', String(KILL_TIMEOUT)], { env: { TREE_PIDS: file } })
  assert.equal(res.code, 0, res.stderr)
  const pids = await waitFor(() => linesOf(file).length === 4 && linesOf(file).map(([, pid]) => pid), { timeout: 15000, message: 'the tree' })
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGKILL')
  await waitFor(() => !running(daemon), { message: 'the daemon to die' })
  assert.equal(alive(pids).length, 4, 'the apps run on, orphaned')
  const pidFile = path.join(h.home, 'pids', 'a-0.pid')
  await waitFor(() => fs.existsSync(pidFile), { message: 'the app\'s pid file' })

  const kill = await h.run(['kill'])
  assert.equal(kill.code, 0, kill.stderr)
  assert.match(kill.stdout, /no daemon running/)
  assert.match(kill.stdout, /ended 4 process\(es\)/)
  assert.deepEqual(alive(pids).map(describeProc), [], 'the command answers once they are gone')
  assert.equal(fs.existsSync(pidFile), false, 'no pid file names a dead pid (issue 34 §4)')
  assert.deepEqual(await h.jlist(), [], 'the next daemon restores nothing')
})

test('xpm kill with a stopped (SIGSTOP) daemon ends the daemon and the apps', async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'a.pids')
  t.after(() => killAll(linesOf(file).map(([, pid]) => pid)))
  const res = await h.run(['start', fixture('tree-app.js'), '--name', 'a', '--kill-timeout', String(KILL_TIMEOUT)], { env: { TREE_PIDS: file } })
  assert.equal(res.code, 0, res.stderr)
  const pids = await waitFor(() => linesOf(file).length === 4 && linesOf(file).map(([, pid]) => pid), { timeout: 15000, message: 'the tree' })
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGSTOP')
  t.after(() => { try { process.kill(daemon, 'SIGKILL') } catch {} })

  const kill = await h.run(['kill'])
  assert.equal(kill.code, 0, kill.stderr)
  assert.match(kill.stdout, new RegExp(`daemon \\(pid ${daemon}\\) did not answer`))
  assert.match(kill.stdout, new RegExp(`daemon \\(pid ${daemon}\\) stopped`))
  assert.equal(running(daemon), false, 'the daemon is gone')
  assert.deepEqual(alive(pids).map(describeProc), [], 'every process of the app is gone')
})

test('xpm update says the truth when the daemon does not answer: a stopped daemon fails the command, a crashed one is replaced', async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'a.pids')
  t.after(() => killAll(linesOf(file).map(([, pid]) => pid)))
  const res = await h.run(['start', fixture('tree-app.js'), '--name', 'a', '--kill-timeout', String(KILL_TIMEOUT)], { env: { TREE_PIDS: file, TREE_KINDS: 'idle' } })
  assert.equal(res.code, 0, res.stderr)
  const pids = await waitFor(() => linesOf(file).length === 2 && linesOf(file).map(([, pid]) => pid), { timeout: 15000, message: 'the tree' })
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGSTOP')
  t.after(() => { try { process.kill(daemon, 'SIGKILL') } catch {} })

  const stopped = await h.run(['update'])
  assert.equal(stopped.code, 1, stopped.stdout)
  assert.match(stopped.stderr, new RegExp(`daemon \\(pid ${daemon}\\) holds .* but does not answer; nothing was updated`))
  assert.doesNotMatch(stopped.stdout, /no daemon running/)

  process.kill(daemon, 'SIGKILL')
  await waitFor(() => !running(daemon), { message: 'the daemon to die' })
  const crashed = await h.run(['update'])
  assert.equal(crashed.code, 0, crashed.stderr)
  assert.match(crashed.stdout, /no daemon running, but 2 process\(es\) of its apps still run \(the daemon crashed\)/)
  await waitFor(async () => (await h.jlist()).some((p) => p.status === 'online' && !pids.includes(p.pid)), { timeout: 15000, message: 'the app restored by the new daemon' })
  assert.deepEqual(alive(pids).map(describeProc), [], 'the old processes are gone')
})

// Issue 34 §4: the opt-out travels with what the app started (XPM_UNTRACKED in their environment).
test('treekill: false: what the app started outlives its delete, the next xpm kill and a daemon crash\'s recovery', async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'keep.pids')
  t.after(() => killAll(linesOf(file).map(([, pid]) => pid)))
  fs.writeFileSync(path.join(h.home, 'eco.config.js'), `module.exports = { apps: [{ name: 'keep', script: ${JSON.stringify(fixture('tree-app.js'))},
    treekill: false, kill_timeout: ${KILL_TIMEOUT}, env: { TREE_PIDS: ${JSON.stringify(file)}, TREE_KINDS: 'idle,daemon' } }] }`)
  const res = await h.run(['start', path.join(h.home, 'eco.config.js')])
  assert.equal(res.code, 0, res.stderr)
  const children = () => linesOf(file).filter(([role]) => role !== 'app').map(([, pid]) => pid)
  await waitFor(() => children().length === 2, { timeout: 15000, message: 'the app\'s two children' })
  const kept = children()
  const del = await h.run(['delete', 'keep'])
  assert.equal(del.code, 0, del.stderr)
  assert.deepEqual(alive(kept).sort((a, b) => a - b), kept.slice().sort((a, b) => a - b), 'the children outlive the delete')

  // a crash of the daemon, then a command: the next daemon's recovery sweeps the home's tag
  const other = await h.run(['start', fixture('idle.js'), '--name', 'other'])
  assert.equal(other.code, 0, other.stderr)
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGKILL')
  await waitFor(() => !running(daemon), { message: 'the daemon to die' })
  await waitFor(async () => (await h.jlist()).some((p) => p.name === 'other' && p.status === 'online'), { timeout: 20000, message: 'the recovered daemon' })
  assert.deepEqual(alive(kept).sort((a, b) => a - b), kept.slice().sort((a, b) => a - b), 'the children outlive a crash recovery')

  const kill = await h.run(['kill'])
  assert.equal(kill.code, 0, kill.stderr)
  assert.deepEqual(alive(kept).sort((a, b) => a - b), kept.slice().sort((a, b) => a - b), 'the children outlive xpm kill')
})
