'use strict'

// Flags of `node daemon/index.js`, as the systemd unit of `xpm startup` runs it:
//   --foreground  run under a service manager: wait for the lock instead of leaving when a
//                 daemon started by the CLI still owns XPM_HOME
//   --resurrect   restore dump.pm2 (`xpm save`) when there is no crash to recover from
function parseDaemonArgs (argv) {
  const flags = new Set(argv)
  return { waitForLock: flags.has('--foreground'), resurrect: flags.has('--resurrect') }
}

module.exports = { parseDaemonArgs }
