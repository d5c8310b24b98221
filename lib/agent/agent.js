'use strict'

// Preloaded into every Node worker the daemon starts (`--require <this file>`), before the app's
// CommonJS or ES-module entry. It only assembles the in-worker modules; none of them keeps the
// app alive or listens to the app's own IPC messages.
//
// Environment knobs: XPM_AGENT=0 turns the agent off; XPM_AGENT_METRICS=0 (the app's `metrics:
// false`) turns off only the metrics reports (not XPM_METRICS: that is the daemon's Prometheus
// address, and may well be in an app's environment); XPM_METRICS_INTERVAL fixes the report
// interval in ms (at least 100) instead of the daemon's schedule. XPM_PROBES=1 (set by the
// daemon for an app with an HTTP or TCP probe) answers the daemon's probes from inside the
// worker (probe.js). XPM_REUSE_PORT=1 (reuse_port: true) makes a cluster worker listen on its
// ports itself, with SO_REUSEPORT (reuse-port.js).

const { forgetPreload } = require('./options')

// Long enough for an app's own 'disconnect' handler to close a server, short enough that a
// restarted daemon finds the port free.
const DISCONNECT_GRACE_MS = 1000

function startAgent () {
  forgetPreload(process.execArgv, __filename)
  const resolution = require('./specifier-resolution')
  if (resolution.wantsNodeResolution(process.execArgv)) resolution.registerNodeResolution()
  // No IPC channel (started by hand, or a worker thread inheriting execArgv): nobody to report to.
  if (typeof process.send !== 'function' || process.env.XPM_AGENT === '0') return null
  const ipc = require('./ipc')
  // The app's servers are known from now on, before its entry runs (servers.js): the drain and
  // the probes work on them.
  require('./servers').trackServers()
  // The drain message that precedes every end of the process arrives as an internal message:
  // invisible to the app's own process.on('message'), and the listener adds no liveness.
  process.on('internalMessage', require('./drain').installDrain({ send: ipc.sendOnce }))
  // HTTP and TCP probes are answered from inside this process (probe.js): only for apps that
  // have one (XPM_PROBES=1).
  if (process.env.XPM_PROBES === '1') process.on('internalMessage', require('./probe').onProbeMessage)
  const agent = { metrics: null, reusePort: null }
  // reuse_port: the worker listens on its port itself, with SO_REUSEPORT (reuse-port.js).
  // Only in cluster workers (the daemon sets it for them alone; a fork-mode app whose own env has
  // it would wait for a hand-over nobody answers).
  if (process.env.XPM_REUSE_PORT === '1' && require('./reuse-port').nodeHasReusePort() && require('node:cluster').isWorker) {
    const { askForSocket, shareSockets } = require('./socket-handover')
    agent.reusePort = require('./reuse-port').listenWithReusePort({ send: ipc.sendOnce, inherit: askForSocket })
    shareSockets(agent.reusePort.servers)
  }
  // after reuse_port's: the app's own listen() calls are the ones tracked
  const firstListens = require('./first-listens').trackFirstListens()
  // Exit once the daemon is gone, metrics or not: a listener, no timer (exit-on-disconnect.js).
  // The app's own process.disconnect() is not the daemon going away: then only a new parent is.
  const { onChannelClosed, exitAfterDisconnect, trackOwnDisconnect, onParentGone } = require('./exit-on-disconnect')
  const disconnectedItself = trackOwnDisconnect()
  agent.disconnect = onChannelClosed(() => {
    agent.metrics?.stop()
    agent.reusePort?.closeAll()
    if (disconnectedItself()) onParentGone(() => exitAfterDisconnect({ graceMs: DISCONNECT_GRACE_MS }))
    else exitAfterDisconnect({ graceMs: DISCONNECT_GRACE_MS })
  })
  // Metrics are reported on the daemon's schedule; its listener is installed now, before the
  // channel is first read (metrics-schedule.js).
  if (process.env.XPM_AGENT_METRICS !== '0') agent.metrics = require('./metrics-schedule').followSchedule({ ipc })
  // After the app's entry has run its first turn (a CommonJS entry has been evaluated; a throw
  // or a failed listen() has already ended the process): the daemon counts the app as started.
  // Its listens started then are waited for first (first-listens.js).
  setImmediate(() => firstListens.settled().then(() => {
    ipc.sendOnce({ 'xpm:agent': 'booted' }) // never dropped: readiness may wait for it
    agent.metrics?.booted()
  }))
  return agent
}

module.exports = startAgent()
