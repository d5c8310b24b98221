'use strict'

// A host whose `source` folder has tracked files changed there: a release refuses it (a `git
// reset --hard` would discard them) naming the host, the step, the files and the fix — except
// lockfiles an install on the host rewrites, and untracked files, which a reset keeps. --force
// discards the changes. Real sshd, real git.
const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { sshdMissing, startSshd } = require('../helpers/sshd')
const { deployProject } = require('../helpers/deploy-project')

const skip = sshdMissing() || false
let sshd
before(async () => { if (!skip) sshd = await startSshd() })
after(async () => { if (sshd) await sshd.stop() })

const ok = (r) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`)

test('changed lockfiles and untracked files do not stop a release; a changed tracked file does, until --force', { skip }, async () => {
  // post-deploy rewrites the tracked lockfiles, as `npm install` / `yarn` on the host do
  const p = deployProject(sshd, {
    postDeploy: 'echo "{}" >> package-lock.json && echo "#" >> sub/yarn.lock',
    files: { 'package-lock.json': '{}\n', 'app.js': 'module.exports = 1\n' }
  })
  fs.mkdirSync(path.join(p.work, 'sub'))
  fs.writeFileSync(path.join(p.work, 'sub', 'yarn.lock'), '#\n')
  p.commit('v1')
  ok(await p.deploy('production', 'setup'))
  ok(await p.deploy('production'))
  fs.writeFileSync(path.join(p.source, 'notes.txt'), 'untracked, kept\n')
  const v2 = p.commit('v2')
  const second = await p.deploy('production')
  ok(second)
  assert.match(second.stdout, /note: tracked files changed here are discarded:\n.*M package-lock\.json/)
  assert.equal(p.head(), v2)
  assert.equal(fs.readFileSync(path.join(p.source, 'notes.txt'), 'utf8'), 'untracked, kept\n')

  fs.appendFileSync(path.join(p.source, 'app.js'), '// hotfix made on the host\n')
  fs.appendFileSync(path.join(p.source, 'VERSION'), 'edited\n')
  const v3 = p.commit('v3')
  const refused = await p.deploy('production')
  assert.equal(refused.code, 1, refused.stdout + refused.stderr)
  assert.match(refused.stderr, /127\.0\.0\.1: reset failed — .*\/host\/source has tracked files changed on the host \(below\), which the release would discard: commit them to the repository, or undo them there \(git -C .*\/host\/source checkout -- <file>\), or add --force to discard them\n {2}\| tracked files changed on the host:\n {2}\| VERSION\n {2}\| app\.js\n/)
  assert.doesNotMatch(refused.stderr, /package-lock|yarn\.lock/)
  assert.match(refused.stderr, /\[XPM_ERR_DEPLOY_FAILED\]/)
  assert.equal(p.head(), v2, 'the host stays on its release')
  assert.match(fs.readFileSync(path.join(p.source, 'app.js'), 'utf8'), /hotfix made on the host/)

  const forced = await p.deploy('production', '--force')
  ok(forced)
  assert.equal(p.head(), v3)
  assert.equal(fs.readFileSync(path.join(p.source, 'app.js'), 'utf8'), 'module.exports = 1\n')
  assert.doesNotMatch(forced.stdout + forced.stderr + refused.stdout + refused.stderr, /do-not-print-me/)
})
