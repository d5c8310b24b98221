'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ensureSafeHome, ensurePrivateDir, readPrivateFile, openAppendNoFollow } = require('../../lib/shared/safe-fs')
const { tempDir } = require('../helpers/tmp')

const isRoot = process.getuid?.() === 0

function tmpDir (t) {
  const dir = tempDir('xpm-safe-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('ensureSafeHome: a missing home is created 0700; an existing one of ours is tightened to 0700', (t) => {
  const dir = tmpDir(t)
  const home = path.join(dir, 'a', 'home')
  ensureSafeHome(home, { create: true, tighten: true })
  assert.equal(fs.statSync(home).mode & 0o777, 0o700)
  fs.chmodSync(home, 0o755)
  ensureSafeHome(home, { create: true, tighten: true })
  assert.equal(fs.statSync(home).mode & 0o777, 0o700)
})

test('ensureSafeHome refuses a symlink, a group- or world-writable home, and says how to fix it', (t) => {
  const dir = tmpDir(t)
  const real = path.join(dir, 'real')
  fs.mkdirSync(real, { mode: 0o700 })
  const link = path.join(dir, 'link')
  fs.symlinkSync(real, link)
  assert.throws(() => ensureSafeHome(link), { code: 'XPM_ERR_HOME_UNSAFE', message: /is a symbolic link.*Fix: set XPM_HOME to the folder itself/ })

  fs.chmodSync(real, 0o770)
  assert.throws(() => ensureSafeHome(real), { code: 'XPM_ERR_HOME_UNSAFE', message: /writable by its group \(mode 0770\).*chmod 700/ })
  fs.chmodSync(real, 0o707)
  assert.throws(() => ensureSafeHome(real), { code: 'XPM_ERR_HOME_UNSAFE', message: /writable by every user/ })

  const file = path.join(dir, 'file')
  fs.writeFileSync(file, '')
  assert.throws(() => ensureSafeHome(file), { code: 'XPM_ERR_HOME_UNSAFE', message: /is not a directory/ })
})

test('ensureSafeHome refuses a home below a folder others can write (unless sticky, like /tmp)', (t) => {
  const dir = tmpDir(t)
  const shared = path.join(dir, 'shared')
  fs.mkdirSync(shared)
  fs.chmodSync(shared, 0o777)
  assert.throws(() => ensureSafeHome(path.join(shared, 'home')), { code: 'XPM_ERR_HOME_UNSAFE', message: /a folder above XPM_HOME .* writable by its group and every user \(mode 0777\) and not sticky/ })
  fs.chmodSync(shared, 0o1777)
  ensureSafeHome(path.join(shared, 'home'))
  assert.ok(fs.statSync(path.join(shared, 'home')).isDirectory())
})

test('ensureSafeHome refuses a home another user owns, or below a folder they own', { skip: !isRoot && 'needs root to chown to another user' }, (t) => {
  const dir = tmpDir(t)
  const home = path.join(dir, 'theirs')
  fs.mkdirSync(home, { mode: 0o700 })
  fs.chownSync(home, 65534, 65534)
  assert.throws(() => ensureSafeHome(home), { code: 'XPM_ERR_HOME_UNSAFE', message: /is owned by uid 65534, not by you \(uid 0\)/ })
  assert.throws(() => ensureSafeHome(path.join(home, 'inner')), { code: 'XPM_ERR_HOME_UNSAFE', message: /a folder above XPM_HOME .* owned by uid 65534, neither root nor you/ })
})

test('ensurePrivateDir (logs/) refuses a symlink in place of the folder', (t) => {
  const dir = tmpDir(t)
  fs.mkdirSync(path.join(dir, 'elsewhere'))
  fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, 'logs'))
  assert.throws(() => ensurePrivateDir(path.join(dir, 'logs')), { code: 'XPM_ERR_HOME_UNSAFE', message: /logs is a symbolic link/ })
  ensurePrivateDir(path.join(dir, 'logs2'))
  assert.equal(fs.statSync(path.join(dir, 'logs2')).mode & 0o777, 0o700)
})

// a FIFO (made by mkfifo, a spawned tool): test/integration/safe-fs-fifo.test.js
test('readPrivateFile: no symlink, nothing others can write', async (t) => {
  const dir = tmpDir(t)
  const target = path.join(dir, 'target.json')
  fs.writeFileSync(target, '{"apps":[]}', { mode: 0o600 })
  assert.equal(await readPrivateFile(target), '{"apps":[]}')

  fs.symlinkSync(target, path.join(dir, 'state.json'))
  await assert.rejects(readPrivateFile(path.join(dir, 'state.json')), { code: 'XPM_ERR_FILE_UNSAFE', message: /state\.json is a symbolic link/ })

  fs.chmodSync(target, 0o620)
  await assert.rejects(readPrivateFile(target), { code: 'XPM_ERR_FILE_UNSAFE', message: /writable by its group/ })
  await assert.rejects(readPrivateFile(path.join(dir, 'missing.json')), { code: 'ENOENT' })
})

test('readPrivateFile refuses a file another user owns', { skip: !isRoot && 'needs root to chown to another user' }, async (t) => {
  const file = path.join(tmpDir(t), 'state.json')
  fs.writeFileSync(file, '{}', { mode: 0o600 })
  fs.chownSync(file, 65534, 65534)
  await assert.rejects(readPrivateFile(file), { code: 'XPM_ERR_FILE_UNSAFE', message: /owned by uid 65534/ })
})

test('openAppendNoFollow: a planted symlink or hard link is refused and its target untouched; new files follow the umask', async (t) => {
  const dir = tmpDir(t)
  const victim = path.join(dir, 'victim')
  fs.writeFileSync(victim, 'precious\n', { mode: 0o600 })
  fs.symlinkSync(victim, path.join(dir, 'app.log'))
  await assert.rejects(openAppendNoFollow(path.join(dir, 'app.log')), { code: 'XPM_ERR_FILE_UNSAFE', message: /symbolic link/ })
  fs.symlinkSync(path.join(dir, 'not-yet'), path.join(dir, 'dangling.log'))
  await assert.rejects(openAppendNoFollow(path.join(dir, 'dangling.log')), { code: 'XPM_ERR_FILE_UNSAFE' })
  assert.equal(fs.existsSync(path.join(dir, 'not-yet')), false, 'a dangling link does not create its target')
  fs.linkSync(victim, path.join(dir, 'hard.log'))
  await assert.rejects(openAppendNoFollow(path.join(dir, 'hard.log')), { code: 'XPM_ERR_FILE_UNSAFE', message: /2 hard links/ })
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n')

  const previous = process.umask(0o027)
  try {
    const { handle } = await openAppendNoFollow(path.join(dir, 'fresh.log'))
    await handle.close()
  } finally {
    process.umask(previous)
  }
  assert.equal(fs.statSync(path.join(dir, 'fresh.log')).mode & 0o777, 0o640)
})
