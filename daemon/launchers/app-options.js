'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { readProcFile } = require('../../lib/shared/proc-read')

// What an app's spec asks of its processes beyond running the script, shared by both launchers
// (PM2's uid/gid, treekill, kill_retry_time, pid_file; docs/migrating-from-pm2.md):
//  - uid, gid: the process runs as that user and group (spawn's setuid/setgid; libuv drops the
//    daemon's supplementary groups). The CLI and validate-spec.js refuse them unless the daemon
//    runs as root;
//  - treekill: false → a stop signals the app's own process only, not what it started, and
//    what it leaves behind when it exits stays (handle.js);
//  - kill_signal, kill_timeout: also how the leftovers of an exit are ended (handle.js);
//  - kill_retry_time: how often a stop checks that the processes of the tree are gone;
//  - pid_file: the pid written at launch (asynchronously; several instances: -<instance> before
//    the extension) and removed at exit while it still holds this process's pid.

function idOptions (spec) {
  const out = {}
  if (Number.isSafeInteger(spec.uid)) out.uid = spec.uid
  if (Number.isSafeInteger(spec.gid)) out.gid = spec.gid
  return out
}

// The identity of a command the daemon runs on the app's behalf (an exec probe, an on_event
// hook: daemon/hooks/run-command.js): the app's user, group and folder, so the command can do
// nothing the app could not. Its environment is the app's too (the caller adds its variables).
function commandOptions (spec) {
  return { cwd: spec.cwd, ...idOptions(spec) }
}

// As PM2: -<n> before the extension, one instance too (`-p echo.pid` → echo-0.pid); n is the
// instance number, as in the per-instance log files. Without pid_file, as PM2 does:
// <pids dir>/<name>-<n>.pid when the daemon has a pids folder (XPM_HOME/pids).
function pidFilePath (spec, index = 0, pidsDir = null) {
  if (!spec.pidFile) return pidsDir && spec.name ? path.join(pidsDir, `${spec.name}-${index}.pid`) : null
  const ext = path.extname(spec.pidFile)
  return ext ? `${spec.pidFile.slice(0, -ext.length)}-${index}${ext}` : `${spec.pidFile}-${index}`
}

// The handle's part of the spec, given to it at construction (launchers/handle.js).
function handleOptions (spec, index = 0, pidsDir = null) {
  const out = {}
  if (spec.killSignal) out.killSignal = spec.killSignal
  if (Number.isSafeInteger(spec.killTimeout)) out.killTimeout = spec.killTimeout
  if (spec.treekill === false) out.treekill = false // no tree (launchEnv gave no tag): the process alone
  if (Number.isSafeInteger(spec.killRetryTime)) out.pollMs = spec.killRetryTime
  const file = pidFilePath(spec, index, pidsDir)
  if (file) out.pidFile = file
  return out
}

// Called by a launcher with the fresh handle (same tick as the fork): its pid file.
function writePidFile (handle, { logger = null } = {}) {
  const file = handle.pidFile
  if (!file) return handle
  handle.once('online', () => {
    const pid = handle.pid
    if (!pid) return
    // the callback API: at a start of many processes, fs/promises' file handles cost more than the write
    fs.writeFile(file, `${pid}\n`, (err) => { if (err) logger?.warn?.({ event: 'pid-file', file, err }, `cannot write ${file}: ${err.code || err.message}`) })
    handle.once('exit', () => {
      // unless a new launch wrote its own meanwhile (proc-read: open, one read, close; no fstat)
      readProcFile(file).then((text) => { if (Number(text) === pid) fs.unlink(file, () => {}) }, () => {})
    })
  })
  return handle
}

module.exports = { idOptions, commandOptions, pidFilePath, handleOptions, writePidFile }
