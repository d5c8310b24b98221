'use strict'

const path = require('node:path')
const os = require('node:os')

// Every file xpm keeps lives under one XPM_HOME; each test uses its own. A script written for
// PM2 that sets PM2_HOME (one daemon per folder) gets a daemon of its own too when XPM_HOME is
// not set: in <PM2_HOME>/xpm, so xpm never writes PM2's own files (its logs/<name>-out.log
// have xpm's names) while both run during a migration (docs/migrating-from-pm2.md).
function defaultHome (env = process.env) {
  if (env.XPM_HOME) return env.XPM_HOME
  if (env.PM2_HOME) return path.join(env.PM2_HOME, 'xpm')
  return path.join(os.homedir(), '.xpm')
}

// PM2_PID_FILE_PATH and PM2_LOG_FILE_PATH move the daemon's pid file and log, as in PM2.
function homePaths (home = defaultHome(), env = process.env) {
  home = path.resolve(home)
  return {
    home,
    socket: path.join(home, 'daemon.sock'),
    pidFile: env.PM2_PID_FILE_PATH ? path.resolve(env.PM2_PID_FILE_PATH) : path.join(home, 'daemon.pid'),
    daemonLog: env.PM2_LOG_FILE_PATH ? path.resolve(env.PM2_LOG_FILE_PATH) : path.join(home, 'daemon.log'),
    daemonStdio: path.join(home, 'daemon.stdio.log'),
    logsDir: path.join(home, 'logs'),
    pidsDir: path.join(home, 'pids'),
    stateFile: path.join(home, 'state.json'),
    dumpFile: path.join(home, 'dump.pm2')
  }
}

module.exports = { homePaths, defaultHome }
