'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { XpmError } = require('./errors')

// Files and folders only the current user controls. XPM_HOME holds what the daemon runs
// (state.json lists scripts it starts at boot, as whoever runs it): a home, a folder above it or
// a file in it that another user owns or can write, or a symbolic link there, is refused rather
// than used. Log files an app names may live in shared folders (/tmp): they are opened without
// following a symbolic link and only when the current user owns them.

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants
// O_NONBLOCK: a FIFO planted under a file's name must not block the open (it fails the
// regular-file check instead); it changes nothing for regular files.
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK
const APPEND_FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK
const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : null)
const GROUP_OR_OTHER_WRITE = 0o022
const STICKY = 0o1000

function unsafe (message, details) {
  return new XpmError('XPM_ERR_HOME_UNSAFE', message, { details })
}

function who (mode) {
  const g = mode & 0o020
  const o = mode & 0o002
  return g && o ? 'its group and every user' : g ? 'its group' : 'every user'
}

const octal = (mode) => (mode & 0o7777).toString(8).padStart(4, '0')

// Why a folder or file we are about to trust is not ours alone, or null when it is.
function problemWith (st, me, { dir }) {
  if (st.isSymbolicLink()) return 'is a symbolic link'
  if (dir && !st.isDirectory()) return 'is not a directory'
  if (!dir && !st.isFile()) return 'is not a regular file'
  if (st.uid !== me) return `is owned by uid ${st.uid}, not by you (uid ${me})`
  if (st.mode & GROUP_OR_OTHER_WRITE) return `is writable by ${who(st.mode)} (mode ${octal(st.mode)})`
  return null
}

// XPM_HOME, created 0700 when missing. Then, like OpenSSH's StrictModes: the home must be a real
// directory (not a link) that the current user owns and only they can write; every folder above
// it must belong to root or to them and be writable by nobody else unless sticky (/tmp), or another
// user could swap the home for one of theirs. Synchronous: the CLI and the daemon's start-up.
function ensureSafeHome (home, { create = true, tighten = false } = {}) {
  const me = uid()
  if (create) {
    try {
      fs.mkdirSync(home, { recursive: true, mode: 0o700 })
    } catch (err) {
      if (err.code !== 'EEXIST') throw err // a file of that name: reported below
    }
  }
  if (me === null) return
  checkAncestors(path.dirname(home), me, home)
  let st
  try {
    st = fs.lstatSync(home)
  } catch (err) {
    if (err.code === 'ENOENT' && !create) return
    throw err
  }
  const problem = problemWith(st, me, { dir: true })
  if (problem) {
    const fix = st.isSymbolicLink()
      ? `set XPM_HOME to the folder itself (${safeRealpath(home)}) if you trust it`
      : st.uid !== me
        ? 'use a folder of your own (the default is ~/.xpm), or take this one over with `chown` only after checking what is in it'
        : `check what is in it, then \`chmod 700 ${home}\``
    throw unsafe(`XPM_HOME ${home} ${problem}; xpm will not use it (another user could make the daemon run their scripts). Fix: ${fix}`, { path: home, problem })
  }
  if (tighten && (st.mode & 0o077)) fs.chmodSync(home, 0o700)
}

// The rule for a folder that must not let another user add, remove or rename names in it: owned
// by root or by `me`, and writable by nobody else; with `sticky`, a sticky folder writable by all
// (/tmp) passes too (nobody can remove or rename what is not theirs there, but anyone can add).
// Returns why it fails, or null. Shared by XPM_HOME's ancestors and log folders (daemon/logs/).
// privateGid: the user's private group (lib/shared/private-group.js), whose write bit is the
// user's own; null when there is none.
function folderProblem (st, me, { sticky = false, privateGid = null } = {}) {
  if (!st.isDirectory()) return 'is not a directory'
  if (st.uid !== 0 && st.uid !== me) return `is owned by uid ${st.uid}, neither root nor you (uid ${me})`
  const writers = privateGid !== null && st.gid === privateGid ? 0o002 : GROUP_OR_OTHER_WRITE
  if ((st.mode & writers) && !(sticky && (st.mode & STICKY))) {
    return `is writable by ${who(st.mode)} (mode ${octal(st.mode)})${sticky ? ' and not sticky' : ''}`
  }
  return null
}

function checkAncestors (start, me, home) {
  let dir
  try {
    dir = fs.realpathSync(start)
  } catch {
    return // nothing above to check yet (the CLI has not created the home)
  }
  for (;;) {
    const problem = folderProblem(fs.statSync(dir), me, { sticky: true })
    if (problem) {
      throw unsafe(`${dir}, a folder above XPM_HOME ${home}, ${problem}: its owner or writers could replace XPM_HOME; xpm will not use it. Fix: put XPM_HOME in a folder only you and root can write`, { path: dir, problem })
    }
    const up = path.dirname(dir)
    if (up === dir) return
    dir = up
  }
}

function safeRealpath (p) {
  try { return fs.realpathSync(p) } catch { return p }
}

// A folder inside XPM_HOME (logs/): created 0700 when missing, refused unless it is ours alone.
function ensurePrivateDir (dir) {
  const me = uid()
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
  } catch (err) {
    if (err.code !== 'EEXIST') throw err
  }
  if (me === null) return
  const problem = problemWith(fs.lstatSync(dir), me, { dir: true })
  if (problem) throw unsafe(`${dir} ${problem}; xpm will not use it. Fix: remove it (the daemon creates it again) or make it a folder only you can write`, { path: dir, problem })
}

// Reads a file of XPM_HOME (state.json, dump.pm2, update.json) without following a link and
// only when it is a regular file the current user owns and only they can write. Rejects with an
// XPM_ERR_FILE_UNSAFE (message and details.problem say why) or the fs error (ENOENT for a missing file).
async function readPrivateFile (file, { fsp = fs.promises } = {}) {
  let handle
  try {
    handle = await fsp.open(file, READ_FLAGS)
  } catch (err) {
    if (err.code === 'ELOOP') throw unsafeFile(file, 'is a symbolic link; xpm does not follow links in XPM_HOME')
    throw err
  }
  try {
    const st = await handle.stat()
    const me = uid()
    const problem = me === null ? (st.isFile() ? null : 'is not a regular file') : problemWith(st, me, { dir: false })
    if (problem) throw unsafeFile(file, problem)
    return await handle.readFile('utf8')
  } finally {
    await handle.close().catch(() => {})
  }
}

function unsafeFile (file, problem) {
  return new XpmError('XPM_ERR_FILE_UNSAFE', `${file} ${problem}; it was not used`, { details: { file, problem } })
}

// Opens a log file for appending without following a symbolic link (a link planted in a shared
// folder must not make the daemon write, as its user, into the file it names). New files get
// mode `mode` minus the umask; an existing file must be a regular file the current user owns,
// with no other hard link (a hard link planted in a shared folder is the same trap as a symlink).
async function openAppendNoFollow (file, { mode = 0o666, fsp = fs.promises } = {}) {
  let handle
  try {
    handle = await fsp.open(file, APPEND_FLAGS, mode)
  } catch (err) {
    // ELOOP; or EACCES: Linux answers O_CREAT on another user's link in a sticky folder so
    const isLink = ['ELOOP', 'EACCES'].includes(err.code) && await fsp.lstat(file).then((st) => st.isSymbolicLink(), () => false)
    if (isLink) throw unsafeFile(file, 'is a symbolic link; xpm does not write log lines through links')
    if (err.code === 'ENXIO') throw unsafeFile(file, 'is a FIFO or socket, not a regular file')
    throw err
  }
  try {
    const st = await handle.stat()
    const me = uid()
    let problem = null
    if (!st.isFile()) problem = 'is not a regular file'
    else if (me !== null && st.uid !== me) problem = `is owned by uid ${st.uid}, not by the daemon's user (uid ${me})`
    else if (st.nlink > 1) problem = `has ${st.nlink} hard links; xpm writes log lines only into a file with one name`
    if (problem) throw unsafeFile(file, problem)
    return { handle, size: st.size }
  } catch (err) {
    await handle.close().catch(() => {})
    throw err
  }
}

// Creates a new file that must not exist yet (O_EXCL never follows a link), mode minus umask.
function createExclusive (file, { mode = 0o600, fsp = fs.promises } = {}) {
  return fsp.open(file, CREATE_FLAGS, mode)
}

// Synchronous twin for start-up files (daemon.pid, daemon.stdio.log): replaces a link or any
// file of that name by a fresh one of ours.
function writePrivateFileSync (file, text, { mode = 0o600 } = {}) {
  fs.rmSync(file, { force: true })
  const fd = fs.openSync(file, CREATE_FLAGS, mode)
  try {
    fs.writeSync(fd, text)
  } finally {
    fs.closeSync(fd)
  }
}

function openAppendNoFollowSync (file, { mode = 0o600 } = {}) {
  let fd
  try {
    fd = fs.openSync(file, APPEND_FLAGS, mode)
  } catch (err) {
    if (err.code !== 'ELOOP' && err.code !== 'ENXIO') throw err
    fs.rmSync(file, { force: true })
    return fs.openSync(file, CREATE_FLAGS | O_APPEND, mode)
  }
  const st = fs.fstatSync(fd)
  const me = uid()
  if (!st.isFile() || (me !== null && st.uid !== me)) {
    fs.closeSync(fd)
    fs.rmSync(file, { force: true })
    return fs.openSync(file, CREATE_FLAGS | O_APPEND, mode)
  }
  return fd
}

module.exports = {
  ensureSafeHome,
  ensurePrivateDir,
  readPrivateFile,
  openAppendNoFollow,
  openAppendNoFollowSync,
  createExclusive,
  writePrivateFileSync,
  problemWith,
  folderProblem,
  CREATE_FLAGS
}
