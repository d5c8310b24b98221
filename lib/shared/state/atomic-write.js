'use strict'

const path = require('node:path')
const { XpmError } = require('../errors')
const { readPrivateFile, CREATE_FLAGS } = require('../safe-fs')

// Replaces `file` with `data` so that a reader (or the next boot) sees either the whole old
// content or the whole new one, never a mix: write a temporary file in the same folder, fsync
// it, rename it over the target, fsync the folder so the rename itself survives a power cut.
// backup: the previous content stays readable as `<file>.bak` (a hard link, so it costs no copy
// and is in place before the target changes). Only async fs: this runs in the daemon's loop.
async function writeFileAtomic (file, data, { fs = require('node:fs').promises, backup = false, mode = 0o600 } = {}) {
  const tmp = file + '.tmp'
  let handle = null
  let created = false
  try {
    // O_EXCL: never through a link or into a file someone else prepared under this name; a
    // leftover of an interrupted write (ours) is removed first.
    await fs.unlink(tmp).catch((err) => { if (err.code !== 'ENOENT') throw err })
    handle = await fs.open(tmp, CREATE_FLAGS, mode)
    created = true
    await handle.writeFile(data)
    await handle.sync()
    await handle.close()
    handle = null
    if (backup) await keepBackup(fs, file)
    await fs.rename(tmp, file)
    created = false
    await syncDir(fs, path.dirname(file))
  } catch (err) {
    if (handle) await handle.close().catch(() => {})
    if (created) await fs.unlink(tmp).catch(() => {})
    throw new XpmError('XPM_ERR_SAVE_FAILED', `Could not write ${file} (${err.code || err.message}); the previous copy is intact`, { cause: err, details: { file } })
  }
}

async function keepBackup (fs, file) {
  const bak = file + '.bak'
  const bakTmp = bak + '.tmp'
  await fs.unlink(bakTmp).catch(() => {})
  try {
    await fs.link(file, bakTmp)
  } catch (err) {
    if (err.code === 'ENOENT') return // nothing saved yet
    // file systems without hard links: a copy does the same, only slower
    await fs.copyFile(file, bakTmp)
  }
  await fs.rename(bakTmp, bak)
}

async function syncDir (fs, dir) {
  let handle
  try {
    handle = await fs.open(dir, 'r')
    await handle.sync()
  } catch (err) {
    // some platforms and file systems cannot fsync a folder; the rename is still atomic
    if (!['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].includes(err.code)) throw err
  } finally {
    await handle?.close().catch(() => {})
  }
}

// Reads a JSON file written by writeFileAtomic. Missing → null. With fallback, a file that
// exists but cannot be read or parsed gives way to its .bak copy; `from` says which was used.
async function readJsonFile (file, { fs = require('node:fs').promises, fallback = false } = {}) {
  try {
    return await readJson(fs, file)
  } catch (err) {
    if (err.code === 'ENOENT') return null
    if (fallback) {
      try {
        return await readJson(fs, file + '.bak')
      } catch {}
    }
    throw new XpmError('XPM_ERR_DUMP_INVALID', `Could not read ${file} (${err.code === 'XPM_ERR_FILE_UNSAFE' ? err.details.problem : err.code || err.message})`, { cause: err, details: { file } })
  }
}

// Not through a symbolic link, and only a regular file of ours that nobody else can write
// (lib/shared/safe-fs.js): a state file planted by another user lists scripts the daemon would run.
async function readJson (fs, file) {
  const text = await readPrivateFile(file, { fsp: fs })
  return { from: file, value: JSON.parse(text) }
}

module.exports = { writeFileAtomic, readJsonFile }
