'use strict'

const cluster = require('node:cluster')
const { ProcessHandle } = require('./handle')
const { nodeExecArgv } = require('./agent-args')

// The daemon is the cluster primary. setupPrimary() settings apply to the next fork only, so
// every fork sets them for its own app. The worker runs the user's script directly (not a
// wrapper that require()s it), so ES-module apps load exactly as under plain `node`.
function launchClusterWorker (spec, env) {
  cluster.setupPrimary({
    exec: spec.script,
    args: spec.args || [],
    cwd: spec.cwd,
    execArgv: nodeExecArgv(spec),
    silent: true
  })
  // cluster.fork() merges the primary's process.env under `env`; the daemon empties its own
  // process.env at start-up so the app sees exactly the environment it was given.
  const worker = cluster.fork(env)
  const handle = new ProcessHandle({ mode: 'cluster', child: worker.process, worker })
  worker.on('online', () => { handle.isOnline = true; handle.emit('online') })
  worker.on('listening', (address) => handle.emit('listening', address))
  worker.on('message', (msg) => handle.emit('message', msg))
  worker.on('disconnect', () => handle.emit('disconnect'))
  worker.on('error', () => {}) // EPIPE on a dying worker's channel; the exit event tells the story
  worker.on('exit', (code, signal) => handle.markExited(code, signal))
  return handle
}

module.exports = { launchClusterWorker }
