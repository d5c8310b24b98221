'use strict'

// `reuse_port: true` (the daemon sets XPM_REUSE_PORT=1 in the worker's environment): the cluster
// worker listens on its TCP port itself, with SO_REUSEPORT, instead of through the primary (the
// daemon), so the kernel spreads new connections over the workers and none of them passes
// through the daemon's event loop.
//
// How: every net.Server#listen (http, https, net, frameworks: they all end there) on a TCP port
// gets `reusePort: true`. Node (≥ 22.12, 23.1) then listens with `exclusive: true`, its own
// socket, and cluster's round-robin is never asked (lib/net.js, Server.prototype.listen). Left
// alone: port 0 (each worker would get a different port, where cluster gives them one shared
// port), Unix sockets, fds and handles, and a listen that says reusePort: false or exclusive:
// false (the app chose); one that says exclusive: true or reusePort: true is taken as ours.
//
// A reload's replacement does not open a socket of its own: it listens on the socket of the worker
// it replaces, which the daemon asks that worker for and hands over (`inherit`,
// socket-handover.js). Closing a SO_REUSEPORT socket resets the connections queued on it (unless
// net.ipv4.tcp_migrate_req is 1); a socket two processes hold is not closed when one lets go.
//
// Since the primary never sees these listens, Node's cluster `listening` event does not fire:
// the agent reports { 'xpm:agent': 'listening', address } over IPC instead (the daemon's
// readiness waits for it, daemon/launchers/cluster.js). And cluster's disconnect closes only the
// servers it handed out: the agent closes these itself when the daemon disconnects the worker
// (a reload or a stop), so in-flight requests finish and the worker exits as usual.
const { listenAddress } = require('./socket-handover')

const CLUSTER_DISCONNECT = (msg) => msg !== null && typeof msg === 'object' && msg.cmd === 'NODE_CLUSTER' && msg.act === 'disconnect'

// Node has `reusePort` for net.Server#listen from 22.12 on the 22 line and from 23.1 on.
function nodeHasReusePort (version = process.versions.node) {
  const [major, minor] = String(version).split('.').map(Number)
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12)
}

// The listen() arguments with reusePort added, or null when this listen is left alone.
function withReusePort (args, normalizeArgs) {
  const [options, callback] = normalizeArgs(args)
  if (options === null || typeof options !== 'object') return null
  if (options.path !== undefined || options.fd !== undefined || options.handle || options._handle) return null
  // reusePort: false, or exclusive: false without reusePort: the app chose; through the primary
  // (or, with exclusive: true and reusePort: false, its own socket without SO_REUSEPORT).
  // exclusive: true alone asks for a socket of the worker's own, which reusePort gives too, and
  // lets the other instances have theirs (without it, the second one fails with EADDRINUSE).
  if (options.reusePort === false || (options.exclusive === false && options.reusePort !== true)) return null
  if (typeof options.port !== 'number' && typeof options.port !== 'string') return null
  if (Number(options.port) === 0) return null
  const out = { ...options, reusePort: true }
  // listen(port, backlog) and listen(port, host, backlog): the backlog is not in `options`
  if (out.backlog === undefined) {
    const positional = [args[1], args[2]].map(Number).find((n) => Number.isInteger(n) && n > 0)
    if (positional !== undefined) out.backlog = positional
  }
  return callback ? [out, callback] : [out]
}

// servers: each server listened here → the address its listen asked for (listenAddress() of
// socket-handover.js, null for no host), by which the worker replacing this one is handed it.
function listenWithReusePort ({ send, inherit = null, resolveAddress = listenAddress, proc = process } = {}) {
  const net = require('node:net')
  const servers = new Map()
  const listen = net.Server.prototype.listen
  net.Server.prototype.listen = function listenReusePort (...args) {
    const changed = withReusePort(args, net._normalizeArgs)
    if (!changed) return listen.apply(this, args)
    servers.set(this, null)
    this.once('close', () => servers.delete(this))
    this.once('listening', () => send({ 'xpm:agent': 'listening', address: this.address() }))
    const [options, callback] = changed
    const port = Number(options.port)
    if (!inherit || !Number.isInteger(port) || port < 1 || port > 65535) return listen.apply(this, changed)
    // A replacement first asks for the socket of the worker it replaces (socket-handover.js);
    // listen() is asynchronous in a cluster worker anyway (through the primary by default).
    if (callback) this.once('listening', callback)
    resolveAddress(options.host).then((address) => {
      if (servers.has(this)) servers.set(this, address)
      return inherit(port, address)
    }).then((handle) => {
      if (handle) listen.call(this, handle, ...(options.backlog ? [options.backlog] : []))
      else listen.call(this, options)
    })
    return this
  }
  const closeAll = () => Promise.all([...servers.keys()].filter((s) => s.listening).map((s) => new Promise((resolve) => s.close(resolve))))
  // Cluster's disconnect closes the servers it handed out and only then disconnects the channel,
  // which the daemon takes as "released" before it sends the stop signal. Its own servers being
  // unknown to it, it would disconnect at once, and the signal would cut their in-flight
  // requests: so the channel is let go once these servers have closed too (all their
  // connections ended: the reload's drain answers the keep-alive ones with Connection: close).
  // This listener runs before cluster's own (prepended), which calls process.disconnect().
  let closing = null
  const disconnect = proc.disconnect
  if (typeof disconnect === 'function') {
    proc.disconnect = function disconnectAfterServers (...args) {
      if (!closing) return disconnect.apply(this, args)
      closing.then(() => { if (proc.connected) disconnect.apply(this, args) })
    }
  }
  proc.prependListener('internalMessage', (msg) => {
    if (CLUSTER_DISCONNECT(msg) && !closing) closing = closeAll()
  })
  return { closeAll, servers }
}

module.exports = { listenWithReusePort, withReusePort, nodeHasReusePort }
