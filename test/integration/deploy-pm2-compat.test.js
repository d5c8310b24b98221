'use strict'

// pm2 deploy's layout, with the real PM2 7 (test/helpers/pm2-7.js): a host set up and released
// by `pm2 deploy` is released by `xpm deploy` (another ref), whose `list`/`curr` read PM2's log;
// then `pm2 deploy … revert 1` reads xpm's lines and goes back, and xpm reads that in turn.
// Real sshd, real git; post-deploy is an `echo`, so no app daemon runs on the "host".
const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { sshdMissing, startSshd } = require('../helpers/sshd')
const { deployProject, git } = require('../helpers/deploy-project')
const { ensurePm2, pm2Runner } = require('../helpers/pm2-7')
const { tempDir } = require('../helpers/tmp')

const skip = sshdMissing() || false
let sshd
before(async () => { if (!skip) sshd = await startSshd() })
after(async () => { if (sshd) await sshd.stop() })

const ok = (r) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`)
const FILE = 'ecosystem.config.js'

test('a host set up and released by pm2 deploy 7, released by xpm deploy, reverted by pm2 deploy, read by both', { skip, timeout: 300000 }, async (t) => {
  const pm2 = ensurePm2()
  if (pm2.skip) return t.skip(pm2.skip)
  const p = deployProject(sshd, { postDeploy: 'echo released' })
  const { run: pm2Deploy, cleanup } = pm2Runner(pm2.bin, { home: tempDir('xpm-pm2-home-'), cwd: p.work })
  t.after(cleanup)
  const deploys = () => fs.readFileSync(path.join(p.hostPath, '.deploys'), 'utf8').trim().split('\n')

  const v1 = p.commit('v1')
  ok(await pm2Deploy('deploy', FILE, 'production', 'setup'))
  assert.equal(p.head(), v1)
  assert.equal(fs.readlinkSync(path.join(p.hostPath, 'current')), p.source)
  const v2 = p.commit('v2')
  ok(await pm2Deploy('deploy', FILE, 'production'))
  assert.equal(p.head(), v2)
  assert.deepEqual(deploys(), [v2])

  // v3 on another branch: xpm deploys that ref, not the file's
  git(p.work, 'checkout', '-q', '-b', 'release')
  const v3 = p.commit('v3')
  git(p.work, 'push', '-q', '-u', 'origin', 'release')
  git(p.work, 'checkout', '-q', 'main')
  const released = await p.deploy(FILE, 'production', 'origin/release', '--no-health')
  ok(released)
  assert.match(released.stdout, /released/)
  assert.equal(p.head(), v3)
  assert.equal(fs.readlinkSync(path.join(p.hostPath, 'current')), p.source)
  const afterXpm = deploys()
  assert.equal(afterXpm.length, 2)
  assert.equal(afterXpm[0], v2)
  assert.match(afterXpm[1], new RegExp(`^${v3} \\d{4}-\\d\\d-\\d\\dT\\S+Z \\S+$`))
  const list = await p.deploy(FILE, 'production', 'list')
  ok(list)
  assert.match(list.stdout, new RegExp(`^0\\t${v3} \\S+ \\S+\\n1\\t${v2}\\n$`))
  assert.equal((await p.deploy(FILE, 'production', 'curr')).stdout, `${v3.slice(0, 7)}\n`)
  assert.match((await pm2Deploy('deploy', FILE, 'production', 'curr')).stdout, new RegExp(`^${v3.slice(0, 7)}$`, 'm'))
  assert.match((await pm2Deploy('deploy', FILE, 'production', 'list')).stdout, new RegExp(`^0\\t${v3} .*\\n1\\t${v2}$`, 'm'))

  // PM2's revert reads the first word of xpm's line
  ok(await pm2Deploy('deploy', FILE, 'production', 'revert', '1'))
  assert.equal(p.head(), v2)
  assert.deepEqual(deploys().map((l) => l.split(' ')[0]), [v2, v3, v2])
  assert.equal((await p.deploy(FILE, 'production', 'curr')).stdout, `${v2.slice(0, 7)}\n`)
  assert.equal((await p.deploy(FILE, 'production', 'prev')).stdout, `${v3}\n`)

  // and back: xpm's revert 1 reads PM2's lines
  ok(await p.deploy(FILE, 'production', 'revert', '1', '--no-health'))
  assert.equal(p.head(), v3)
  assert.match((await pm2Deploy('deploy', FILE, 'production', 'curr')).stdout, new RegExp(`^${v3.slice(0, 7)}$`, 'm'))
  assert.equal(fs.readlinkSync(path.join(p.hostPath, 'current')), p.source)
})
