'use strict'

// The per-mode launch strategies. The rest of the daemon asks the launcher, never the mode.
const LAUNCHERS = {
  cluster: require('./cluster'),
  fork: require('./fork')
}

function launcherFor (spec) {
  const launcher = LAUNCHERS[spec.execMode]
  if (!launcher) throw new Error(`no launcher for exec mode ${spec.execMode}`)
  return launcher
}

module.exports = { launcherFor }
