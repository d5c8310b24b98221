'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { writeFileAtomic, readJsonFile } = require('../../lib/shared/state/atomic-write')
const { tempDir } = require('../helpers/tmp')

function tmpDir (t) {
  const dir = tempDir('xpm-atomic-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// fs.promises with one step made to fail, and a record of what was called.
function failingFs (step, { code = 'EIO' } = {}) {
  const real = fs.promises
  const calls = []
  const fail = (name) => {
    calls.push(name)
    if (name === step) throw Object.assign(new Error(`${name} failed`), { code })
  }
  const wrapHandle = (handle) => ({
    writeFile: async (data) => { fail('write'); return handle.writeFile(data) },
    sync: async () => { fail('fsync'); return handle.sync() },
    close: async () => handle.close()
  })
  return {
    calls,
    open: async (file, flags, mode) => { fail(flags === 'r' ? 'openDir' : 'open'); return wrapHandle(await real.open(file, flags, mode)) },
    rename: async (a, b) => { fail(a.endsWith('.bak.tmp') ? 'renameBackup' : 'rename'); return real.rename(a, b) },
    link: async (a, b) => { fail('link'); return real.link(a, b) },
    copyFile: async (a, b) => { fail('copyFile'); return real.copyFile(a, b) },
    unlink: async (f) => real.unlink(f),
    readFile: real.readFile
  }
}

test('writes the file whole, mode 0600, with no temporary file left', async (t) => {
  const file = path.join(tmpDir(t), 'dump.pm2')
  await writeFileAtomic(file, '{"a":1}\n')
  assert.equal(fs.readFileSync(file, 'utf8'), '{"a":1}\n')
  assert.equal(fs.statSync(file).mode & 0o777, 0o600)
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['dump.pm2'])
})

test('backup: the previous content stays readable as .bak', async (t) => {
  const file = path.join(tmpDir(t), 'dump.pm2')
  await writeFileAtomic(file, 'one', { backup: true })
  assert.equal(fs.existsSync(file + '.bak'), false, 'no backup of nothing')
  await writeFileAtomic(file, 'two', { backup: true })
  await writeFileAtomic(file, 'three', { backup: true })
  assert.equal(fs.readFileSync(file, 'utf8'), 'three')
  assert.equal(fs.readFileSync(file + '.bak', 'utf8'), 'two')
})

test('backup falls back to a copy where hard links are refused', async (t) => {
  const file = path.join(tmpDir(t), 'dump.pm2')
  await writeFileAtomic(file, 'old')
  await writeFileAtomic(file, 'new', { backup: true, fs: failingFs('link', { code: 'EPERM' }) })
  assert.equal(fs.readFileSync(file + '.bak', 'utf8'), 'old')
  assert.equal(fs.readFileSync(file, 'utf8'), 'new')
})

for (const step of ['open', 'write', 'fsync', 'link', 'renameBackup', 'rename']) {
  test(`a failure at "${step}" leaves the previous save intact and readable (XPM_ERR_SAVE_FAILED)`, async (t) => {
    const dir = tmpDir(t)
    const file = path.join(dir, 'dump.pm2')
    await writeFileAtomic(file, '{"saved":"before"}\n')
    const bad = failingFs(step === 'link' ? 'copyFile' : step)
    if (step === 'link') bad.link = async () => { throw Object.assign(new Error('no links'), { code: 'EPERM' }) }
    await assert.rejects(writeFileAtomic(file, '{"saved":"after"}\n', { backup: true, fs: bad }), (err) => {
      assert.equal(err.code, 'XPM_ERR_SAVE_FAILED')
      assert.match(err.message, /dump\.pm2/)
      return true
    })
    assert.deepEqual((await readJsonFile(file)).value, { saved: 'before' })
    assert.equal(fs.existsSync(file + '.tmp'), false, 'the temporary file is removed')
  })
}

test('a temporary path that cannot be written (a folder in the way) fails cleanly', async (t) => {
  const dir = tmpDir(t)
  const file = path.join(dir, 'dump.pm2')
  await writeFileAtomic(file, '[1]')
  fs.mkdirSync(file + '.tmp')
  await assert.rejects(writeFileAtomic(file, '[2]'), { code: 'XPM_ERR_SAVE_FAILED' })
  assert.equal(fs.readFileSync(file, 'utf8'), '[1]')
  assert.ok(fs.statSync(file + '.tmp').isDirectory(), 'what was in the way is not touched')
})

test('killed mid-write: a partial temporary file never replaces the target', async (t) => {
  const dir = tmpDir(t)
  const file = path.join(dir, 'dump.pm2')
  await writeFileAtomic(file, '{"ok":true}')
  fs.writeFileSync(file + '.tmp', '{"half') // what a crash between write and rename leaves
  assert.deepEqual((await readJsonFile(file)).value, { ok: true })
  await writeFileAtomic(file, '{"ok":2}')
  assert.deepEqual((await readJsonFile(file)).value, { ok: 2 })
})

test('readJsonFile: missing is null, unreadable falls back to .bak when asked, else XPM_ERR_DUMP_INVALID', async (t) => {
  const dir = tmpDir(t)
  const file = path.join(dir, 'dump.pm2')
  assert.equal(await readJsonFile(file), null)
  fs.writeFileSync(file + '.bak', '{"from":"bak"}')
  assert.equal(await readJsonFile(file, { fallback: true }), null, 'a deleted save is not revived from its backup')
  fs.writeFileSync(file, '{not json')
  await assert.rejects(readJsonFile(file), { code: 'XPM_ERR_DUMP_INVALID' })
  const read = await readJsonFile(file, { fallback: true })
  assert.deepEqual(read, { from: file + '.bak', value: { from: 'bak' } })
})
