'use strict'

const cluster = require('./cluster')
const fork = require('./fork')
const { daemonHome } = require('./tree-env')
const { SocketHandover } = require('./socket-handover')
const { createLeftoverScan } = require('./leftover-scan')

// The per-mode launch strategies. The rest of the daemon asks the launcher, never the mode.
// What the launchers of one daemon share lives here, made once per daemon (no module state):
//   launches  the launch tags whose process has not exited (tree-env.js, handle.js)
//   pidsDir   XPM_HOME/pids, for the default pid files (app-options.js), or null
//   handover  reuse_port's socket handover between a worker and its replacement
//   home      XPM_HOME, resolved once (tree-env.js)
//   leftovers the sweeps after an exit xpm did not ask for, and the launches' notes they read
//             (leftover-scan.js)
function createLaunchers ({ pidsDir = null } = {}) {
  const launches = new Set()
  const shared = { launches, pidsDir, handover: new SocketHandover(), home: daemonHome(), leftovers: createLeftoverScan({ liveLaunches: launches }) }
  const LAUNCHERS = {
    cluster: { launch: (spec, env, options) => cluster.launch(spec, env, options, shared), replacesInPlace: cluster.replacesInPlace },
    fork: { launch: (spec, env, options) => fork.launch(spec, env, options, shared), replacesInPlace: fork.replacesInPlace }
  }
  return function launcherFor (spec) {
    const launcher = LAUNCHERS[spec.execMode]
    if (!launcher) throw new Error(`no launcher for exec mode ${spec.execMode}`)
    return launcher
  }
}

module.exports = { createLaunchers }
