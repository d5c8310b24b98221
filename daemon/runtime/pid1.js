'use strict'

// xpm-runtime as PID 1 (a container started without `--init`). PID 1 inherits every orphan in
// the container and must reap it, or it stays a zombie for the container's life; Node can only
// wait for the processes it spawned itself. Run as a command (`xpm-runtime app.js`, the
// container's CMD), bin/xpm-runtime is read by /bin/sh first, which becomes the init itself on
// every Node version (see that file). Run as `node xpm-runtime`, Node is PID 1: then the runtime
// puts an init in front of itself, before doing anything else: the process becomes `/bin/sh init.sh`
// (process.execve, Node >= 22.15 / 23.11; the pid stays 1), which starts the runtime again as
// its child, forwards the container's signals to it, reaps orphans, and exits with its status
// (see init.sh). A POSIX shell is on every official node image (Debian, slim, alpine).
//
// When that cannot be done (Node without process.execve, no /bin/sh as on distroless images,
// or XPM_RUNTIME_INIT=0), the runtime runs as PID 1 itself and says so at start, with the fix.
// With an init of the container's own (`docker run --init`, tini, Kubernetes'
// shareProcessNamespace) the runtime is not PID 1 and none of this applies.

const path = require('node:path')
const { isExecutable } = require('../../lib/shared/config/script')

const INIT_SCRIPT = path.join(__dirname, 'init.sh')
const SHELL = '/bin/sh'
const FIX = 'run `xpm-runtime` itself as the container\'s command (not `node xpm-runtime`: its shell entry is the init on every Node), ' +
  'or start the container with an init: `docker run --init`, tini as the entrypoint, or ' +
  '`shareProcessNamespace: true` in Kubernetes (see docs/deploy.md)'

// What to do, from the facts (pure): { action: 'none' } (not PID 1), { action: 'exec', file,
// args } or { action: 'warn', reason }.
function planInit ({ pid = process.pid, env = process.env, canExec = typeof process.execve === 'function', hasShell = () => isExecutable(SHELL), execPath = process.execPath, execArgv = process.execArgv, argv = process.argv, version = process.version } = {}) {
  if (pid !== 1) return { action: 'none' }
  let reason = null
  if (env.XPM_RUNTIME_INIT === '0') reason = 'XPM_RUNTIME_INIT=0 is set'
  else if (!canExec) reason = `Node ${version} cannot put an init in front of it (process.execve needs Node >= 22.15)`
  else if (!hasShell()) reason = `there is no ${SHELL} to run xpm's init`
  if (reason) return { action: 'warn', reason }
  return { action: 'exec', file: SHELL, args: [SHELL, INIT_SCRIPT, execPath, ...execArgv, ...argv.slice(1)] }
}

// Called first thing by bin/xpm-runtime. Returns null (nothing to say), or the warning to log
// once the runtime's logger is up. On success it does not return: the process is the init now.
function ensureInit (options = {}) {
  const plan = planInit(options)
  if (plan.action === 'none') return null
  if (plan.action === 'exec') {
    try {
      (options.execve ?? process.execve)(plan.file, plan.args, process.env)
      return null // only a stand-in execve returns
    } catch (err) {
      plan.reason = `starting ${SHELL} ${INIT_SCRIPT} failed (${err.message})`
    }
  }
  return warning(plan.reason)
}

// Node as PID 1 without an init: the kernel drops a signal that PID 1 has no handler for, so a
// SIGTERM or SIGINT that came before the daemon listens (its start-up takes a while) would be
// lost and the container would run on. Until the daemon has its own listener, such a signal ends
// the runtime at once (nothing is started yet), with the shell's status for it.
const EARLY = { SIGTERM: 143, SIGINT: 130 }
function holdEarlySignals ({ proc = process, exit = (code) => proc.exit(code) } = {}) {
  if (proc.pid !== 1) return false
  for (const [sig, code] of Object.entries(EARLY)) {
    const early = () => {
      if (proc.listenerCount(sig) > 1) return // the daemon listens: its shutdown handles it
      exit(code)
    }
    proc.on(sig, early)
  }
  return true
}

function warning (reason) {
  return `xpm-runtime is PID 1 without an init (${reason}): processes your apps leave behind will ` +
    `stay as zombies once they end. To fix it, ${FIX}.`
}

module.exports = { planInit, ensureInit, holdEarlySignals, warning, INIT_SCRIPT }
