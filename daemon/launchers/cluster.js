'use strict'

const cluster = require('node:cluster')
const { ProcessHandle } = require('./handle')
const { nodeExecArgv, hasAgent } = require('./agent-args')
const { launchEnv } = require('./tree-env')
const { idOptions, handleOptions, writePidFile } = require('./app-options')
const { drainMessage, untilDrained } = require('./drain')

// A cluster worker: the daemon is its primary and routes its connections. It shares the
// daemon's process group (cluster.fork cannot detach), so it and what it started are signalled
// one pid at a time, never by group (stop-process.js, process-tree.js).
class ClusterHandle extends ProcessHandle {
  #worker

  constructor ({ worker, ...launch }) {
    super({ child: worker.process, ...launch })
    this.#worker = worker
  }

  get worker () { return this.#worker }

  get announcesListening () { return true }

  // With reuse_port the worker listens itself, the primary never hears of it: the agent says so
  // (lib/agent/reuse-port.js), and that is the same `listening` as the primary's. Told before the
  // `booted` that any agent message implies, so readiness judges the listen (port-claims.js).
  received (msg) {
    if (msg !== null && typeof msg === 'object' && msg['xpm:agent'] === 'listening') this.emit('listening', msg.address ?? null)
    super.received(msg)
  }

  // The worker drains its keep-alive clients (drain.js), the primary stops routing new
  // connections to it and its servers close once their connections have ended. Released at the
  // disconnect, or once the agent says no HTTP connection is left: an upgraded one (a WebSocket)
  // would hold the disconnect, and so the stop signal, until kill_timeout ran out; or when the
  // worker's event loop does not answer (a hung worker never disconnects).
  release ({ killTimeout } = {}) {
    if (this.exited || !this.#worker.isConnected()) return Promise.resolve()
    this.send(drainMessage({ killTimeout, report: true }))
    const released = untilDrained(this, { killTimeout, endEvents: ['disconnect'], answers: this.reportsBoot })
    this.#worker.disconnect()
    return released
  }
}

// The daemon is the cluster primary. setupPrimary() settings apply to the next fork only, so
// every fork sets them for its own app. The worker runs the user's script directly (not a
// wrapper that require()s it), so ES-module apps load exactly as under plain `node`.
// shared: what the launchers of one daemon share (launchers/index.js).
function launchClusterWorker (spec, appEnv, { index = 0 } = {}, shared) {
  const { env, tag, tree } = launchEnv(spec, appEnv, index, shared)
  if (spec.reusePort === true) env.XPM_REUSE_PORT = '1' // the worker listens itself (lib/agent/reuse-port.js)
  else delete env.XPM_REUSE_PORT
  cluster.setupPrimary({
    exec: spec.script,
    args: spec.args || [],
    cwd: spec.cwd,
    execArgv: nodeExecArgv(spec),
    silent: true,
    // setupPrimary() keeps what it was given before: an app without uid/gid must not inherit them
    uid: idOptions(spec).uid,
    gid: idOptions(spec).gid
  })
  // cluster.fork() merges the primary's process.env under `env`; the daemon empties its own
  // process.env at start-up so the app sees exactly the environment it was given.
  const worker = cluster.fork(env)
  const launchStat = spec.treekill !== false ? shared.leftovers.noteLaunch(tag, worker.process.pid) : null
  const handle = new ClusterHandle({ worker, tag, treeTag: tree, reportsBoot: hasAgent(env), launches: shared.launches, leftovers: shared.leftovers, launchStat, options: handleOptions(spec, index, shared.pidsDir) })
  worker.on('online', () => handle.markOnline())
  worker.on('listening', (address) => handle.emit('listening', address))
  worker.on('message', (msg) => handle.received(msg))
  worker.on('disconnect', () => handle.emit('disconnect'))
  worker.on('error', () => {}) // EPIPE on a dying worker's channel; the exit event tells the story
  worker.on('exit', (code, signal) => handle.markExited(code, signal))
  if (spec.reusePort === true) shared.handover.joinSlot(handle, spec.name, index) // a replacement takes over the socket
  return writePidFile(handle)
}

// Cluster workers share their listening sockets through the primary, so a replacement can
// start beside the worker it replaces: a reload never drops a connection.
module.exports = { launch: launchClusterWorker, replacesInPlace: true, ClusterHandle }
