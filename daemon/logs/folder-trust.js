'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { folderProblem } = require('../../lib/shared/safe-fs')
const { readPrivateGroup } = require('../../lib/shared/private-group')
const { XpmError } = require('../../lib/shared/errors')

// rotating-file-stream opens, renames and creates log files by name, following symbolic links.
// That is safe only where nobody but the daemon's user (or root) can add a name: then nobody can
// plant a link or a file where a log or one of its rotated copies will be. So before a log file
// is opened, and again before each rotation, its folder and every folder above it pass the rule
// XPM_HOME passes (lib/shared/safe-fs.js): owned by root or the daemon's user, writable by nobody else
// (a group-writable folder whose group is the user's private group is writable by the user alone:
// Ubuntu's umask 002 makes 0775 folders for a group of one, and PM2 users log there).
// Folders above may be sticky and shared (/tmp); the log's own folder may not, since in a sticky
// folder anyone can still create a new name (a link where the next rotated file will go).
// Both the path as written and the real path are walked: a link on the way is only as safe as
// the folder that holds it. Missing folders are created 0755 (minus the umask) once the nearest
// existing one passed, so nobody else can have made them in between.

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : null)

// A start of 100 apps opens 200 log files in one folder: each check walks the folder and every one
// above it (a dozen stat/realpath calls), a quarter of the daemon's work per process. So checks of
// one folder that overlap share one walk, and a pass is remembered for PASS_MEMORY_MS: only the
// folder's owner (or root) can make it unsafe meanwhile, and a refusal is never remembered.
const PASS_MEMORY_MS = 1000

function createFolderTrust ({ fsp = fs.promises, me = uid(), now = Date.now, memoryMs = PASS_MEMORY_MS } = {}) {
  const passed = new Map() // folder → when it passed
  const pending = new Map() // folder → the walk in progress
  return function trust (file) {
    const dir = path.dirname(path.resolve(file))
    const at = passed.get(dir)
    if (at !== undefined && now() - at < memoryMs) return Promise.resolve(dir)
    let walk = pending.get(dir)
    if (!walk) {
      walk = trustLogFolder(file, { fsp, me }).then((d) => {
        passed.set(dir, now())
        if (passed.size > 64) passed.delete(passed.keys().next().value) // bounded: a few log folders
        return d
      }).finally(() => pending.delete(dir))
      pending.set(dir, walk)
    }
    return walk
  }
}

async function trustLogFolder (file, { fsp = fs.promises, me = uid(), privateGid } = {}) {
  const dir = path.dirname(path.resolve(file))
  if (me === null) return dir // no owners to compare (Windows)
  // the user's private group, read only when a folder is writable by its group, and again at each
  // walk that needs it (a member added to the group later makes it shared)
  let known = privateGid === undefined ? null : Promise.resolve(privateGid)
  const ownGroup = () => (known ??= me === uid() ? readPrivateGroup({ fsp }) : Promise.resolve(null))
  let existing = dir
  while (!(await isPresent(fsp, existing))) {
    const up = path.dirname(existing)
    if (up === existing) break
    existing = up
  }
  await checkChain(fsp, existing, me, file, ownGroup)
  if (existing !== dir) {
    await fsp.mkdir(dir, { recursive: true, mode: 0o755 })
    await checkChain(fsp, dir, me, file, ownGroup)
  }
  return dir
}

async function isPresent (fsp, p) {
  try {
    await fsp.stat(p)
    return true
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return false
    throw err
  }
}

// The folder itself (strict), then each folder above it (sticky allowed): along its real path
// first (a refusal names the real folder), then along the path as written.
async function checkChain (fsp, dir, me, file, ownGroup) {
  const real = await fsp.realpath(dir)
  const seen = new Set()
  for (const start of real === dir ? [dir] : [real, dir]) {
    let p = start
    for (let own = true; ; own = false) {
      const key = `${own}:${p}`
      if (!seen.has(key)) {
        seen.add(key)
        const st = await fsp.stat(p)
        let problem = folderProblem(st, me, { sticky: !own })
        if (problem && (st.mode & 0o022) === 0o020) problem = folderProblem(st, me, { sticky: !own, privateGid: await ownGroup() })
        if (problem) throw refused(file, p, problem, { own, mine: st.uid === me && !(st.mode & 0o1000) })
      }
      const up = path.dirname(p)
      if (up === p) break
      p = up
    }
  }
}

function refused (file, dir, problem, { own, mine }) {
  const where = own ? `its folder ${dir}` : `${dir}, a folder above it,`
  const fix = mine
    ? `\`chmod go-w ${dir}\` if nobody else needs to write there, or log into a folder only you can write`
    : 'log into a folder only you can write (for example `mkdir -m 700 ~/logs`) and point out_file/error_file/log_file there'
  return new XpmError('XPM_ERR_FILE_UNSAFE', `log file ${file} refused: ${where} ${problem}; another user could plant a link there and make the daemon write where they choose. Fix: ${fix}. The app runs on and its lines stay in \`xpm logs\``, { details: { file, folder: dir, problem } })
}

module.exports = { trustLogFolder, createFolderTrust, PASS_MEMORY_MS }
