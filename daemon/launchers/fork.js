'use strict'

const childProcess = require('node:child_process')
const { ProcessHandle } = require('./handle')
const { nodeExecArgv, hasAgent } = require('./agent-args')
const { launchEnv } = require('./tree-env')
const { idOptions, handleOptions, writePidFile } = require('./app-options')
const { isNodeRuntime } = require('../../lib/shared/config/script')
const { drainMessage, untilDrained } = require('./drain')

// A fork-mode child leads its own process group, so a signal reaches a shell script's children.
// (A stop reaches the rest of its tree too, and the group even after the leader has exited:
// see stop-process.js and process-tree.js.)
class ForkHandle extends ProcessHandle {
  // A Node app with the agent drains before its stop signal (drain.js): its servers stop
  // accepting, keep-alive clients are told to close and idle ones are closed between requests;
  // the signal follows once no HTTP connection is left, or after half of kill_timeout (the app's
  // own handler gets the rest), or soon when the app's event loop does not answer the drain.
  // signalFollows false (the app stops on the 'shutdown' message): the servers are left to it.
  release ({ killTimeout = 5000, signalFollows = true } = {}) {
    const message = drainMessage({ killTimeout, report: true, signal: signalFollows ? this.killSignal : null })
    if (this.exited || !this.reportsBoot || !this.send(message)) return Promise.resolve()
    return untilDrained(this, { killTimeout, timeoutMs: killTimeout / 2 })
  }

  signal (sig) {
    if (this.treekill === false) return super.signal(sig) // treekill: false, the process alone
    if (this.exited || !this.pid) return false
    try {
      process.kill(-this.pid, sig)
      return true
    } catch {
      return super.signal(sig)
    }
  }
}

// Fork mode: child_process.fork for Node scripts (IPC for the agent and `ready`), on the Node
// that runs xpm or the one the app names (interpreter: '/opt/node18/bin/node'); spawn for any
// other interpreter or an executable. shared: what the launchers of one daemon share (index.js).
function launchForkProcess (spec, appEnv, { index = 0 } = {}, shared) {
  const { env, tag, tree } = launchEnv(spec, appEnv, index, shared)
  const options = { cwd: spec.cwd, env, detached: true, ...idOptions(spec) }
  const node = isNodeRuntime(spec.interpreter)
  let child
  if (node) {
    child = childProcess.fork(spec.script, spec.args || [], {
      ...options,
      ...(spec.interpreter !== 'node' ? { execPath: spec.interpreter } : {}),
      execArgv: nodeExecArgv(spec),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc']
    })
  } else {
    const [command, args] = spec.interpreter === 'none'
      ? [spec.script, spec.args || []]
      : [spec.interpreter, [...(spec.nodeArgs || []), spec.script, ...(spec.args || [])]]
    child = childProcess.spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  }
  const launchStat = spec.treekill !== false ? shared.leftovers.noteLaunch(tag, child.pid) : null
  // detached: the child calls setsid(), leading group = its pid
  const handle = new ForkHandle({ child, tag, treeTag: tree, reportsBoot: node && hasAgent(env), group: child.pid || 0, groupLeader: true, launches: shared.launches, leftovers: shared.leftovers, launchStat, options: handleOptions(spec, index, shared.pidsDir) })
  child.once('spawn', () => handle.markSpawned())
  child.on('message', (msg) => handle.received(msg))
  child.on('disconnect', () => handle.emit('disconnect'))
  child.on('error', (err) => {
    // spawn failures (ENOENT, EACCES) arrive here instead of an exit event
    if (child.pid === undefined) handle.markSpawnFailed(err)
  })
  child.on('exit', (code, signal) => handle.markExited(code, signal))
  return writePidFile(handle)
}

// Fork-mode processes cannot share a port, so a reload is a restart, one instance at a time.
module.exports = { launch: launchForkProcess, replacesInPlace: false, ForkHandle }
