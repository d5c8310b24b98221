'use strict'

// reuse_port, in the worker: a replacement takes over the listening socket of the worker it
// replaces instead of opening one of its own (daemon/launchers/socket-handover.js is the other
// end). Closing a SO_REUSEPORT socket resets the connections queued on it (unless
// net.ipv4.tcp_migrate_req is 1); a socket that two processes hold is not closed when one of them
// lets go, so a reload closes no socket at all.
//
// A socket is matched by address and port: a reload whose new spec listens on another address
// (HOST 127.0.0.1 → 127.0.0.2) gets a socket of its own, not the old address's.
//
// Internal messages (cmd NODE_…: the app's process.on('message') never sees them):
//   worker → daemon  { cmd: 'NODE_XPM_SOCKET_ASK', id, port, address }    before a listen
//   daemon → worker  { cmd: 'NODE_XPM_SOCKET', id } + handle or none        the answer
//   daemon → worker  { cmd: 'NODE_XPM_SOCKET_SHARE', id, port, address }  to the worker being replaced
//   worker → daemon  { cmd: 'NODE_XPM_SOCKET_SHARED', id } + handle or none
// address: the IP the listen binds, as listenAddress() gives it (null: the unspecified address).
const net = require('node:net')
const ASK_TIMEOUT_MS = 5000

let lastId = 0
const waiting = new Map() // id → finish
const answered = new WeakSet() // the processes onAnswer listens on

// Installed once and kept (an internalMessage listener keeps nothing alive): an answer that comes
// after the timeout still brings a handle, which must be closed, or this process would hold a
// socket of the port's group that nobody accepts on.
function onAnswer (msg, handle) {
  if (msg === null || typeof msg !== 'object' || msg.cmd !== 'NODE_XPM_SOCKET') return
  const finish = waiting.get(msg.id)
  if (finish) finish(handle ?? null)
  else handle?.close?.()
}

// One spelling per IP (IPv6 compressed, lower case): '::1' and '0:0::1' are one address.
function canonicalAddress (ip) {
  if (net.isIPv6(ip)) return new URL(`http://[${ip}]`).hostname.slice(1, -1)
  return ip
}

// The address a listen({ host }) binds, found as net.Server#listen finds it (dns.lookup, the
// first answer); null for no host (Node binds '::', or '0.0.0.0' without IPv6). A host that does
// not resolve is returned as given: it matches no socket, and the listen fails as it would anyway.
async function listenAddress (host, { lookup = require('node:dns').promises.lookup } = {}) {
  if (host === undefined || host === null || host === '') return null
  if (net.isIP(String(host))) return canonicalAddress(String(host))
  try {
    return canonicalAddress((await lookup(String(host))).address)
  } catch {
    return String(host)
  }
}

// Resolves the listening TCP handle the daemon hands over for `port` on `address`, or null
// (none, no daemon, or no answer within ASK_TIMEOUT_MS).
function askForSocket (port, address = null, { proc = process } = {}) {
  if (proc.connected !== true) return Promise.resolve(null)
  if (!answered.has(proc)) {
    answered.add(proc)
    proc.on('internalMessage', onAnswer)
  }
  const id = ++lastId
  return new Promise((resolve) => {
    const finish = (handle) => {
      clearTimeout(timer)
      waiting.delete(id)
      resolve(handle)
    }
    // ref'd: the app has nothing else keeping it alive before it listens
    const timer = setTimeout(() => finish(null), ASK_TIMEOUT_MS)
    waiting.set(id, finish)
    try {
      proc.send({ cmd: 'NODE_XPM_SOCKET_ASK', id, port, address }, (err) => { if (err) finish(null) })
    } catch {
      finish(null)
    }
  })
}

// servers: Map of server → the address its listen asked for (listenAddress()). Each server is
// handed over once: an app with two servers on one address and port gets them back in the order
// it listens, as the worker it replaces did. No host (null) matches only a listen without host.
function shareSockets (servers, { proc = process } = {}) {
  const shared = new WeakSet()
  proc.on('internalMessage', (msg) => {
    if (msg === null || typeof msg !== 'object' || msg.cmd !== 'NODE_XPM_SOCKET_SHARE') return
    const address = msg.address ?? null
    const match = ([s, asked]) => !shared.has(s) && s.listening && s._handle && s.address()?.port === msg.port && asked === address
    const server = [...servers].find(match)?.[0]
    if (server) shared.add(server)
    const reply = { cmd: 'NODE_XPM_SOCKET_SHARED', id: msg.id }
    try {
      if (server) proc.send(reply, server._handle, () => {})
      else proc.send(reply, () => {})
    } catch {}
  })
}

module.exports = { askForSocket, shareSockets, listenAddress, canonicalAddress, ASK_TIMEOUT_MS }
