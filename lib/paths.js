'use strict'

const path = require('node:path')
const os = require('node:os')

// Every file xpm keeps lives under one XPM_HOME; each test uses its own.
function homePaths (home = process.env.XPM_HOME || path.join(os.homedir(), '.xpm')) {
  home = path.resolve(home)
  return {
    home,
    socket: path.join(home, 'daemon.sock'),
    pidFile: path.join(home, 'daemon.pid'),
    daemonLog: path.join(home, 'daemon.log'),
    daemonStdio: path.join(home, 'daemon.stdio.log'),
    logsDir: path.join(home, 'logs'),
    stateFile: path.join(home, 'state.json'),
    dumpFile: path.join(home, 'dump.json')
  }
}

module.exports = { homePaths }
