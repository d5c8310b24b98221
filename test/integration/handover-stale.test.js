'use strict'

// A leftover update.json (issue 23): `prepareUpdate` written, then the apps changed, then
// `xpm kill`: the next daemon must not bring the deleted app back. Any change after the
// hand-over was prepared, and any kill that is not `xpm update`'s own, makes it stale.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, fixture } = require('../helpers/xpm')
const { connect } = require('../../lib/cli/client')

const ok = (res) => assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`)

async function prepareUpdate (home) {
  const client = await connect({ home, autoStart: false })
  try {
    return await client.request('prepareUpdate', {})
  } finally {
    client.close()
  }
}

test('update.json prepared, then delete old-app, start new-app, kill: the next daemon does not bring old-app back', async (t) => {
  const h = createHome(t)
  ok(await h.run(['start', fixture('idle.js'), '--name', 'old-app']))
  await prepareUpdate(h.home)
  const file = path.join(h.home, 'update.json')
  assert.ok(fs.existsSync(file))
  ok(await h.run(['delete', 'old-app']))
  ok(await h.run(['start', fixture('idle.js'), '--name', 'new-app']))
  ok(await h.run(['kill']))
  assert.equal(fs.existsSync(file), false, 'a kill that is not the update\'s own removes it')
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => p.name), [], 'a clean kill restores nothing, and old-app is not back')
})

test('update.json prepared, then the apps changed, then the daemon is killed -9: the next daemon restores the kept state, not the hand-over', async (t) => {
  const h = createHome(t)
  ok(await h.run(['start', fixture('idle.js'), '--name', 'old-app']))
  await prepareUpdate(h.home)
  ok(await h.run(['delete', 'old-app']))
  ok(await h.run(['start', fixture('idle.js'), '--name', 'new-app']))
  const before = await h.jlist()
  const pid = h.daemonPid()
  process.kill(pid, 'SIGKILL')
  for (const p of before) h.track(p.pid)
  const { waitFor } = require('../helpers/wait')
  await waitFor(() => { try { process.kill(pid, 0); return false } catch { return true } }, { message: 'the daemon gone' })
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => p.name), ['new-app'])
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /stale .*update\.json: the apps changed after it was written \(old-app deleted since; new-app added since\)/)
})
