'use strict'

// PM2's e2e scenarios cli/dump.sh and cli/resurrect.sh, and daemon-paths-override.sh: the saved
// list is XPM_HOME/dump.pm2 (+ dump.pm2.bak from the second save on), a broken dump.pm2 is
// restored from its backup, and PM2_PID_FILE_PATH moves the daemon's pid file.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, fixture, isAlive, waitFor } = require('../helpers/xpm')

const ok = (res) => assert.equal(res.code, 0, `exit ${res.code}\n${res.stdout}\n${res.stderr}`)

test('save writes dump.pm2, then dump.pm2.bak; resurrect uses the backup of a broken dump.pm2; PM2_PID_FILE_PATH', async (t) => {
  const h = createHome(t)
  const pidFile = path.join(h.home, 'toto.pid')
  ok(await h.run(['start', fixture('idle.js'), '-i', '2', '--name', 'echo'], { env: { PM2_PID_FILE_PATH: pidFile } }))
  const daemonPid = Number(fs.readFileSync(pidFile, 'utf8'))
  assert.ok(daemonPid > 0 && isAlive(daemonPid), 'the daemon wrote its pid where PM2_PID_FILE_PATH says')
  assert.equal(fs.existsSync(path.join(h.home, 'daemon.pid')), false)
  const dump = path.join(h.home, 'dump.pm2')
  ok(await h.run(['save']))
  assert.ok(fs.existsSync(dump))
  assert.equal(fs.existsSync(dump + '.bak'), false, 'no backup after the first save')
  ok(await h.run(['save']))
  assert.ok(fs.existsSync(dump + '.bak'), 'the previous save is the backup')

  ok(await h.run(['delete', 'all']))
  fs.writeFileSync(dump, '[{')
  const res = await h.run(['resurrect'])
  assert.equal(res.code, 0, 'as PM2: exit 0, its backup used')
  assert.match(res.stderr, /warning: dump\.pm2 is damaged/)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['echo', 'online'], ['echo', 'online']])
  assert.equal(fs.existsSync(dump), false, 'as PM2: the broken dump.pm2 is gone')
  assert.ok(fs.readdirSync(h.home).some((f) => f.startsWith('dump.pm2.corrupt-')), 'set aside, not lost')
  // cli/resurrect.sh: with no dump.pm2, resurrect reads dump.pm2.bak
  ok(await h.run(['delete', 'all']))
  ok(await h.run(['resurrect']))
  assert.deepEqual((await h.jlist()).map((p) => [p.name, p.status]), [['echo', 'online'], ['echo', 'online']])
})

test('as PM2, each process has a pid file, XPM_HOME/pids/<name>-<instance>.pid (jlist --pm2: pm_pid_path), removed when it exits', async (t) => {
  const h = createHome(t)
  ok(await h.run(['start', fixture('idle.js'), '-i', '2', '--name', 'echo']))
  const files = [0, 1].map((i) => path.join(h.home, 'pids', `echo-${i}.pid`))
  const list = JSON.parse((await h.run(['jlist', '--pm2'])).stdout)
  assert.deepEqual(list.map((p) => p.pm2_env.pm_pid_path), files)
  assert.deepEqual(files.map((f) => Number(fs.readFileSync(f, 'utf8'))), list.map((p) => p.pid))
  ok(await h.run(['delete', 'all']))
  await waitFor(() => files.every((f) => !fs.existsSync(f)), { message: 'the pid files removed' })
})
