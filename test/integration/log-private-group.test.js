'use strict'

// Ubuntu's umask 002: a PM2 user's project folder is 0775, its group the user's private group
// (lib/shared/private-group.js). Log files there are written; a 0775 folder of a shared group
// is still refused (daemon/logs/folder-trust.js).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture } = require('../helpers/xpm')
const { readPrivateGroup } = require('../../lib/shared/private-group')
const { tempDir } = require('../helpers/tmp')

const NOGROUP = 65534 // nobody's group: nobody's own, never the tests' user's

test('a log in a 0775 folder of the user\'s private group is written; in a 0775 folder of another group it is refused', async (t) => {
  const gid = await readPrivateGroup()
  if (gid === null) return t.skip(`this user (uid ${process.getuid()}, gid ${process.getgid()}) has no private group in /etc/group`)
  const h = createHome(t)
  const project = tempDir('xpm-umask002-')
  t.after(() => fs.rmSync(project, { recursive: true, force: true }))
  fs.chownSync(project, process.getuid(), gid)
  fs.chmodSync(project, 0o775)
  const out = path.join(project, 'logs', 'ticker-out.log')
  const res = await h.run(['start', fixture('tick-lines.js'), '--name', 'ticker', '--output', out], { cwd: project })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(() => fs.existsSync(out) && /tick 3/.test(fs.readFileSync(out, 'utf8')), { timeout: 15000, message: `lines in ${out}` })

  if (process.getuid() !== 0) return // chgrp to a group one is not in needs root
  const shared = tempDir('xpm-shared-group-')
  t.after(() => fs.rmSync(shared, { recursive: true, force: true }))
  fs.chownSync(shared, 0, NOGROUP)
  fs.chmodSync(shared, 0o775)
  const refused = path.join(shared, 'other-out.log')
  const other = await h.run(['start', fixture('tick-lines.js'), '--name', 'other', '--output', refused])
  assert.equal(other.code, 0, other.stderr)
  const daemonLog = () => fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  await waitFor(() => daemonLog().includes(`log file ${refused} refused: its folder ${shared} is writable by its group (mode 0775)`), { message: 'the refusal in daemon.log' })
  assert.equal(fs.existsSync(refused), false)
})
