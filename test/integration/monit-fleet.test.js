'use strict'

// `xpm monit --hosts production` in a real terminal (tmux) against two sshd "hosts" on loopback,
// each with its own daemon (test/helpers/fleet.js): a host column, the same app on both hosts as
// two rows, j moving the selection from one host's row to the other's, and a host that dies
// shown as unreachable (its row kept, never stopped) while monit keeps running.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { fixture, waitFor, BIN } = require('../helpers/xpm')
const { TmuxSession } = require('../helpers/tmux')
const { sshdMissing } = require('../helpers/sshd')
const { startFleet } = require('../helpers/fleet')
const { killHost } = require('../helpers/host-kill')

const skip = sshdMissing() || (spawnSync(process.env.XPM_TEST_TMUX || 'tmux', ['-V']).status === 0 ? false : 'tmux is not installed (.ci/run installs it)')
const q = (arg) => `'${String(arg).replace(/'/g, "'\\''")}'`

test('xpm monit --hosts: a host column, keys across hosts, a host that dies is unreachable', { skip, timeout: 180000 }, async (t) => {
  const f = await startFleet(t, 2)
  for (const [i, host] of f.hosts.entries()) {
    const res = await host.home.run(['start', fixture('idle.js'), '--name', 'api'])
    assert.equal(res.code, 0, res.stderr)
    if (i === 1) assert.equal((await host.home.run(['start', fixture('idle.js'), '--name', 'jobs'])).code, 0)
  }
  const errFile = path.join(f.dir, 'monit.stderr')
  const session = await TmuxSession.start({ command: `${q(process.execPath)} ${q(BIN)} monit --hosts production 2>${q(errFile)}`, cols: 120, rows: 40, env: f.env, cwd: f.dir })
  t.after(() => session.kill())
  const screen = () => waitFor(async () => {
    const s = await session.capture()
    return /│h1\s+0 api\s+online/.test(s) && /│h2\s+0 api\s+online/.test(s) && /│h2\s+1 jobs\s+online/.test(s) && s
  }, { timeout: 60000, message: `rows of both hosts (stderr: ${fs.existsSync(errFile) ? fs.readFileSync(errFile, 'utf8') : ''})` })
  const first = await screen()
  assert.match(first, /│host\s+id name/)
  assert.match(first, /xpm monit {3}2 hosts {3}3\/3 online/)
  assert.match(first, /┌─ api #0 on h1 ─/)

  await session.sendKeys('j')
  await session.waitForText(/┌─ api #0 on h2 ─/, { timeout: 10000 })
  await session.sendKeys('j')
  await session.waitForText(/┌─ jobs #1 on h2 ─/, { timeout: 10000 })
  await session.sendKeys('k', 'k')
  await session.waitForText(/┌─ api #0 on h1 ─/, { timeout: 10000 })

  killHost(f.hosts[1].sshd.pid)
  const after = await session.waitForText(/│h2\s+0 api\s+unreachable/, { timeout: 60000 })
  assert.match(after, /│h2\s+1 jobs\s+unreachable/)
  assert.match(after, /│h1\s+0 api\s+online/)
  assert.match(after, /2 hosts \(unreachable: h2\) {3}1\/3 online/)
  assert.doesNotMatch(after, /stopped/)
  await session.sendKeys('q')
  assert.equal(await session.waitForExit({ timeout: 10000 }), 0)
})
