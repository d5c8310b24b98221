'use strict'

// Keep-alive draining, inside any worker with the agent, for every way a process ends (stop,
// restart, delete, reload, scale-down, kill, a policy's restart, the daemon's shutdown). Before
// the daemon ends a process it sends { cmd: 'NODE_XPM_DRAIN', idleMs, report, closeServers }:
// Node delivers messages whose cmd starts with NODE_ as 'internalMessage', so the app's own
// process.on('message') never sees it, and listening for it does not keep the process alive.
// From then on:
//  - every response of a server that has stopped listening (for a moment: up to 250 ms, half of
//    idleMs) carries `Connection: close`, so a client sends nothing more on that socket. Only
//    then: a client told to close connects again at once, and while the server (in cluster mode,
//    the primary's socket, until the app's last worker has closed it) still accepts, that new
//    connection would be taken only to be reset when the socket closes; once closed, it is
//    refused, cleanly;
//  - server.close() (cluster's disconnect calls it, and most apps' signal handlers) no longer
//    destroys idle keep-alive sockets at once: a client may be writing its next request on one
//    at that very moment, which is where plain server.close() resets connections;
//  - a server's close() once the drain or cluster's disconnect has closed it is answered as a
//    first close() is (the app's own signal handler calls it), without ERR_SERVER_NOT_RUNNING;
//  - connections of a server that no longer listens still idle `idleMs` later (and every idleMs
//    after) are closed between requests, so a client that stays idle does not hold the stop
//    until SIGKILL;
//  - closeServers { signal, holdMs } (fork mode, where no primary stops routing): the app's servers
//    stop accepting now, while its keep-alive clients are still connected (a connection made later
//    would wait in the backlog and be reset when the app closes its server). The process is kept
//    alive until `signal` arrives (at most holdMs): an app whose only handle is its server must
//    not end before its own signal handler (cleanup, a final flush) runs;
//  - report: { 'xpm:agent': 'draining' } at once (the event loop turns), and { 'xpm:agent':
//    'drained' } once no server of the process listens and no HTTP connection is left (an
//    upgraded one is not waited for): the daemon sends the stop signal then.
// Nothing is installed until the message arrives; the app's code is not changed.
const { servers: trackedServers, onListen: trackedListens } = require('./servers')

const DRAIN = 'NODE_XPM_DRAIN'
const DEFAULT_IDLE_MS = 1000
const CHECK_MS = 25
const CLOSE_GRACE_MS = 250

function isDrainMessage (msg) {
  return msg !== null && typeof msg === 'object' && msg.cmd === DRAIN
}

function installDrain ({ servers = trackedServers, send = () => {} } = {}) {
  let drain = null
  return function onMessage (msg) {
    if (!isDrainMessage(msg)) return false
    const idleMs = Number.isFinite(msg.idleMs) && msg.idleMs > 0 ? msg.idleMs : DEFAULT_IDLE_MS
    drain ??= startDraining({ servers, idleMs })
    if (msg.closeServers) drain.closeServers(msg.closeServers)
    if (msg.report === true) {
      send({ 'xpm:agent': 'draining' }) // the event loop turns: the daemon waits for the drain
      drain.whenDrained(() => send({ 'xpm:agent': 'drained' }))
    }
    return true
  }
}

function startDraining ({ servers = trackedServers, onListen = trackedListens, idleMs = DEFAULT_IDLE_MS } = {}) {
  // A short grace after the server stops listening: the app's other workers are closing theirs
  // at the same moment, and a client told to close before the primary has let go of the port
  // would reconnect into it and be reset there.
  const graceMs = Math.min(CLOSE_GRACE_MS, idleMs / 2)
  const closedFor = (server) => server && !server.listening && performance.now() - (closingSince.get(server) ?? -Infinity) >= graceMs
  const http = httpHooks(closedFor)
  for (const server of servers) answerLateClose(server)
  const httpServers = () => [...servers].filter(http.serves)
  const sweep = setInterval(() => {
    for (const server of httpServers()) {
      if (closedFor(server)) http.closeIdle(server)
    }
  }, idleMs)
  sweep.unref()
  httpServers()
  onListen.add(http.serves) // a server the app starts after the drain began

  let watching = null
  let reported = false
  const waiting = []
  let held = false
  const closedByDrain = new WeakSet()
  // Fork mode: every server stops accepting, also one the app starts listening with after the
  // drain began (a stop during its boot).
  const closeListening = () => {
    for (const server of servers) {
      if (!server.listening || closedByDrain.has(server)) continue
      closedByDrain.add(server)
      http.serves(server)
      closeForTheApp(server)
    }
  }
  return {
    closeServers ({ signal = 'SIGINT', holdMs = 5000 } = {}) {
      if (held) return
      held = true
      const hold = setTimeout(() => {}, holdMs)
      // Listening for the signal only where the app does: a listener of ours alone would cancel
      // the signal's default action (ending the process).
      if (typeof signal === 'string' && process.listenerCount(signal) > 0) process.once(signal, () => clearTimeout(hold))
      closeListening()
    },
    // Each ask is answered (a second stop of the same process asks again).
    whenDrained (done) {
      if (reported) return done()
      waiting.push(done)
      if (watching) return
      // A server still listening (a cluster worker's, until its disconnect closes it) may yet
      // be handed a connection. Only HTTP connections are waited for: any other (upgraded, or a
      // TCP server's) is the app's own signal handler's to end.
      const check = () => countConnections(httpServers()).then((open) => {
        if (held) closeListening()
        if (open > 0 || reported || [...servers].some((s) => s.listening)) return
        reported = true
        clearInterval(watching)
        for (const fn of waiting.splice(0)) fn()
      })
      watching = setInterval(check, CHECK_MS)
      watching.unref()
      check()
    }
  }
}

// What the drain changes in the HTTP servers, from the first one it sees on: nothing is required
// for a process that serves no HTTP (node:http and node:https cost a process ~5 ms of CPU, and a
// `delete all` drains 1,000 processes at once on a few cores). serves(server) says whether it
// is an HTTP server (the first time, its class's closeIdleConnections() turns into a no-op:
// server.close() calls it, and it would reset a client writing its next request on an idle
// socket); closeIdle(server) runs the original one. Every response of a server closed for a
// moment (closedFor) carries `Connection: close`.
function httpHooks (closedFor) {
  const originals = new Map() // prototype → its own closeIdleConnections
  let subscribed = false
  const ownerOf = (server) => {
    let proto = Object.getPrototypeOf(server)
    while (proto && !Object.hasOwn(proto, 'closeIdleConnections')) proto = Object.getPrototypeOf(proto)
    return proto
  }
  return {
    serves (server) {
      if (typeof server?.closeIdleConnections !== 'function') return false
      const proto = ownerOf(server)
      if (proto && !originals.has(proto)) {
        originals.set(proto, proto.closeIdleConnections)
        proto.closeIdleConnections = function closeIdleConnections () {}
      }
      if (!subscribed) {
        subscribed = true
        require('node:diagnostics_channel').subscribe('http.server.request.start', ({ response, server }) => {
          if (!response.headersSent && closedFor(server)) response.setHeader('connection', 'close')
        })
      }
      return true
    },
    closeIdle (server) {
      try { originals.get(ownerOf(server))?.call(server) } catch {}
    }
  }
}

// From the drain on, a server's close() once it has been closed (by the drain in fork mode, by
// cluster's disconnect) is answered as if it were the first: the app's own close() in its
// signal handler gets its callback once the connections have ended, with no
// ERR_SERVER_NOT_RUNNING (an app that exits 1 on that error would) and no second 'close' event.
const answering = new WeakSet()
const closingSince = new WeakMap() // server → when it stopped listening (performance.now())

function answerLateClose (server) {
  if (answering.has(server)) return
  answering.add(server)
  const first = server.close
  let closed = false
  server.once('close', () => { closed = true })
  server.close = function close (callback) {
    if (this.listening) {
      closingSince.set(this, performance.now())
      return first.call(this, callback)
    }
    if (typeof callback === 'function') {
      if (closed) process.nextTick(callback)
      else this.once('close', () => callback())
    }
    return this
  }
}

// Fork mode: the server stops accepting now.
function closeForTheApp (server) {
  answerLateClose(server)
  try { server.close() } catch {}
}

// Connections still speaking HTTP: an upgraded one (a WebSocket) is the app's to end, and no
// drain ends it, so it must not hold the stop signal back. Node's HTTP servers list those
// (internal, 'http.server.connections', since Node 18.2); where the list is missing, every
// connection counts.
function countConnections (list) {
  return Promise.all(list.map((server) => new Promise((resolve) => {
    const http = server[connectionsList(server)]
    if (typeof http?.all === 'function') return resolve(http.all().length)
    server.getConnections((err, count) => resolve(err ? 0 : count))
  }))).then((counts) => counts.reduce((a, b) => a + b, 0))
}

function connectionsList (server) {
  return Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connections')
}

module.exports = { installDrain, startDraining, DRAIN }
