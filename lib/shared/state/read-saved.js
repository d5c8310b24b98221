'use strict'

const fsSync = require('node:fs')
const path = require('node:path')
const { XpmError } = require('../errors')
const { readJsonFile, writeFileAtomic } = require('./atomic-write')
const { parseState } = require('./state-format')

const SALVAGE_BYTES = 1024 * 1024

// Reads a saved state (state.json, dump.pm2, update.json), never losing apps silently. A file
// that is damaged (not JSON, or not the shape a restore needs) is set aside as
// `<file>.corrupt-<time>`, so the next save cannot push the good `.bak` copy out with it, and,
// with `fallback`, the `.bak` copy is used instead; the result says so in `damaged`, with what
// may be missing. With `promote`, the `.bak` content is then written as `<file>`, so the next
// reader (a boot with --resurrect) finds the same apps. A file from a newer xpm or one that
// cannot be opened is not "damaged": that error is thrown and the file left alone. With
// `whenMissing`, a missing `<file>` is read from its `.bak` (PM2's resurrect does: a damaged
// dump set aside leaves only the backup).
//
// → null (no file) | { from, state, damaged: null | { file, error, setAside, savedAt, usedSavedAt, mayBeMissing, message } }
async function readSavedState (file, { fallback = false, promote = false, whenMissing = false, now = Date.now, fs = fsSync.promises } = {}) {
  let error
  try {
    const main = await load(file)
    if (!main) return whenMissing ? readBackup(file) : null
    return { ...main, damaged: null }
  } catch (err) {
    if (!isDamage(err)) throw err
    error = err
  }
  const name = path.basename(file)
  const reason = reasonOf(error)
  const savedAt = await fs.stat(file).then((s) => s.mtime.toISOString(), () => null)
  const salvaged = await salvageNames(fs, file)
  const setAside = await putAside(fs, file, now)
  let backup = null
  if (fallback) {
    try {
      backup = await load(file + '.bak')
    } catch (err) {
      if (!isDamage(err)) throw err
    }
  }
  const asideText = setAside ? `; it is kept as ${path.basename(setAside)}` : ''
  if (!backup) {
    throw new XpmError('XPM_ERR_DUMP_INVALID', `${file} is damaged (${reason})${fallback ? ` and ${name}.bak is missing or damaged too` : ''}${asideText}`,
      { cause: error, details: { file, setAside } })
  }
  const known = new Set(backup.state.apps.map((a) => a.spec.name))
  const mayBeMissing = salvaged.filter((n) => !known.has(n))
  if (promote) await writeFileAtomic(file, JSON.stringify(backup.raw, null, 2) + '\n')
  const message = `${name} is damaged (${reason}); used ${name}.bak instead, the save before it` +
    `${backup.state.savedAt ? ` (${backup.state.savedAt})` : ''}. Changes saved since${savedAt ? ` (last write ${savedAt})` : ''} are lost: ` +
    (mayBeMissing.length ? `apps named in the damaged file but not in the backup: ${mayBeMissing.join(', ')}; ` : '') +
    `apps added since are missing and apps changed since have their older settings${asideText}`
  return {
    from: backup.from,
    state: backup.state,
    damaged: { file, error: reason, setAside, savedAt, usedSavedAt: backup.state.savedAt, mayBeMissing, message }
  }
}

async function readBackup (file) {
  const backup = await load(file + '.bak').catch((err) => { if (isDamage(err)) return null; throw err })
  return backup ? { ...backup, damaged: null } : null
}

async function load (file) {
  const read = await readJsonFile(file)
  return read ? { from: read.from, raw: read.value, state: parseState(read.value, { file: read.from }) } : null
}

// Not JSON, or JSON without the shape a restore needs. A file from a newer xpm is not damage.
function isDamage (err) {
  if (err?.details?.newer) return false
  if (err?.code === 'XPM_ERR_DUMP_INVALID' && err.cause) return err.cause.name === 'SyntaxError'
  return err?.code === 'XPM_ERR_DUMP_INVALID' && err.details?.damaged === true
}

function reasonOf (err) {
  const cause = err.cause?.name === 'SyntaxError' ? err.cause.message : err.message
  return cause.replace(/^[^:]*\.(json|pm2): /, '')
}

// `<file>.corrupt-20261123T034200.123Z`; null when it cannot be moved (it is then left in place).
async function putAside (fs, file, now) {
  const stamp = new Date(now()).toISOString().replace(/[-:]/g, '')
  const target = `${file}.corrupt-${stamp}`
  try {
    await fs.rename(file, target)
    return target
  } catch {
    return null
  }
}

// App names a damaged file still shows ("name": "…"), to say which may be missing. Read without
// following a symlink, and at most SALVAGE_BYTES.
async function salvageNames (fs, file) {
  let handle
  try {
    handle = await fs.open(file, fsSync.constants.O_RDONLY | (fsSync.constants.O_NOFOLLOW ?? 0))
    const buf = Buffer.alloc(SALVAGE_BYTES)
    const { bytesRead } = await handle.read(buf, 0, SALVAGE_BYTES, 0)
    const text = buf.subarray(0, bytesRead).toString('utf8')
    const names = new Set()
    for (const m of text.matchAll(/"name"\s*:\s*"((?:[^"\\\n]|\\.){1,200})"/g)) {
      try { names.add(JSON.parse(`"${m[1]}"`)) } catch {}
    }
    return [...names]
  } catch {
    return []
  } finally {
    await handle?.close().catch(() => {})
  }
}

module.exports = { readSavedState }
