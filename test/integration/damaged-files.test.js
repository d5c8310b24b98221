'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture, isAlive } = require('../helpers/xpm')
const { serializeState } = require('../../lib/shared/state/state-format')

const ok = (res) => assert.equal(res.code, 0, res.stderr)
const asideFiles = (home, name) => fs.readdirSync(home).filter((f) => f.startsWith(`${name}.corrupt-`))
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))

// Alive and not a zombie (an orphan's exit is reaped by PID 1, which some sandboxes never do).
function running (pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0])
  } catch {
    return process.platform === 'linux' ? false : isAlive(pid)
  }
}

test('resurrect with a damaged dump.pm2: the backup\'s apps start, a warning says what was used and what may be missing, exit 0 as PM2, the damaged file set aside', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dump = path.join(h.home, 'dump.pm2')
  ok(await h.run(['start', fixture('idle.js'), '--name', 'api']))
  ok(await h.run(['save']))
  ok(await h.run(['start', fixture('idle.js'), '--name', 'worker']))
  ok(await h.run(['save'])) // dump.pm2: api + worker; dump.pm2.bak: api
  ok(await h.run(['kill']))
  // the last save, cut short (a full disk, a power cut)
  const text = fs.readFileSync(dump, 'utf8')
  fs.writeFileSync(dump, text.slice(0, text.lastIndexOf('"worker"') + 10))

  const res = await h.run(['resurrect'])
  assert.equal(res.code, 0, 'as PM2: the apps of the backup run')
  assert.match(res.stdout, /api: restored \(1 online\)/)
  assert.match(res.stderr, /\[xpm\] warning: dump\.pm2 is damaged \(.+\); used dump\.pm2\.bak instead, the save before it \(.+\)\. .*apps named in the damaged file but not in the backup: worker; .*kept as dump\.pm2\.corrupt-\d{8}T\d{6}\.\d{3}Z \[XPM_ERR_DUMP_DAMAGED\]/)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['api', 'online']])
  const aside = asideFiles(h.home, 'dump.pm2')
  assert.equal(aside.length, 1)
  assert.match(fs.readFileSync(path.join(h.home, aside[0]), 'utf8'), /"worker"/, 'the damaged file is kept')
  assert.equal(fs.existsSync(dump), false, 'as PM2: no dump.pm2 is left; dump.pm2.bak stays')

  // a missing dump.pm2 is read from dump.pm2.bak: a second resurrect is quiet and changes nothing
  const again = await h.run(['resurrect', '--json'])
  ok(again)
  assert.equal(JSON.parse(again.stdout).damaged, undefined)
  assert.equal((await h.jlist()).length, 1)
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /dump\.pm2 is damaged/)
})

test('a crash with a damaged state.json: state.json.bak is used, the orphan is reaped, the app restored, with a warning', async (t) => {
  const h = createHome(t, { inProcess: true })
  const state = path.join(h.home, 'state.json')
  // not Node (no agent) and writing nothing (no broken pipe): this child outlives a daemon
  // crash, and only state.json names it
  const script = path.join(h.home, 'quiet.sh')
  fs.writeFileSync(script, '#!/usr/bin/env bash\nwhile true; do sleep 1; done\n', { mode: 0o700 })
  ok(await h.run(['start', script, '--name', 'forky']))
  const [before] = await h.jlist()
  await waitFor(() => {
    const bak = readJson(state + '.bak')
    return bak.processes.some((p) => p.pid === before.pid) && readJson(state).apps.length === 1
  }, { message: 'state.json.bak naming the process' })

  const daemonPid = h.daemonPid()
  process.kill(daemonPid, 'SIGKILL')
  await waitFor(() => !isAlive(daemonPid), { message: 'the daemon to die' })
  assert.ok(running(before.pid), 'the fork-mode child outlived the daemon')
  fs.writeFileSync(state, '{"version": 1, "apps": [{"spec": {"na')

  const listed = await h.run(['list'])
  ok(listed)
  assert.match(listed.stderr, /the daemon restarted after a crash \(previous pid \d+\) and restored 1 app/)
  assert.match(listed.stderr, /\[xpm\] warning: state\.json is damaged .*used state\.json\.bak instead/)
  await waitFor(() => !running(before.pid), { timeout: 10000, message: 'the orphan to be reaped' })
  const after = await waitFor(async () => {
    const [p] = await h.jlist()
    return p?.status === 'online' && p
  }, { timeout: 15000, message: 'the restored app online' })
  assert.notEqual(after.pid, before.pid)
  assert.equal(asideFiles(h.home, 'state.json').length, 1)
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /outlived the previous daemon/)
  assert.match(log, /state\.json is damaged/)
})

test('a stale update.json from an interrupted `xpm update` is ignored and removed at a later start', async (t) => {
  const h = createHome(t, { inProcess: true })
  const updateFile = path.join(h.home, 'update.json')
  fs.mkdirSync(h.home, { recursive: true, mode: 0o700 })
  const spec = { name: 'deleted-long-ago', script: fixture('idle.js'), cwd: path.dirname(fixture('idle.js')), instances: 1, execMode: 'fork', interpreter: 'node', env: {} }
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000
  fs.writeFileSync(updateFile, serializeState({ apps: [{ spec, listens: false, instances: [{ id: 0, index: 0, desired: 'online' }] }], daemon: { pid: 999999 }, cleanShutdown: true, now: () => weekAgo }), { mode: 0o600 })

  const res = await h.run(['jlist'])
  ok(res)
  assert.deepEqual(JSON.parse(res.stdout), [], 'no app comes back')
  assert.doesNotMatch(res.stderr, /restored/)
  assert.equal(fs.existsSync(updateFile), false)
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /ignoring and removing a stale .*update\.json: it was written 7d ago/)
})
