'use strict'

// reuse_port, in the worker: a replacement takes over the listening socket of the worker it
// replaces instead of opening one of its own (daemon/launchers/socket-handover.js is the other
// end). Closing a SO_REUSEPORT socket resets the connections queued on it (unless
// net.ipv4.tcp_migrate_req is 1); a socket that two processes hold is not closed when one of them
// lets go, so a reload closes no socket at all.
//
// Internal messages (cmd NODE_…: the app's process.on('message') never sees them):
//   worker → daemon  { cmd: 'NODE_XPM_SOCKET_ASK', id, port }       before a listen on `port`
//   daemon → worker  { cmd: 'NODE_XPM_SOCKET', id } + handle or none  the answer
//   daemon → worker  { cmd: 'NODE_XPM_SOCKET_SHARE', id, port }     to the worker being replaced
//   worker → daemon  { cmd: 'NODE_XPM_SOCKET_SHARED', id } + handle or none
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

// Resolves the listening TCP handle the daemon hands over for `port`, or null (none, no daemon,
// or no answer within ASK_TIMEOUT_MS).
function askForSocket (port, { proc = process } = {}) {
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
      proc.send({ cmd: 'NODE_XPM_SOCKET_ASK', id, port }, (err) => { if (err) finish(null) })
    } catch {
      finish(null)
    }
  })
}

// Each server is handed over once: an app with two servers on one port (IPv4 and IPv6, say)
// gets them back in the order it listens, as the worker it replaces did.
function shareSockets (servers, { proc = process } = {}) {
  const shared = new WeakSet()
  proc.on('internalMessage', (msg) => {
    if (msg === null || typeof msg !== 'object' || msg.cmd !== 'NODE_XPM_SOCKET_SHARE') return
    const server = [...servers].find((s) => !shared.has(s) && s.listening && s._handle && s.address()?.port === msg.port)
    if (server) shared.add(server)
    const reply = { cmd: 'NODE_XPM_SOCKET_SHARED', id: msg.id }
    try {
      if (server) proc.send(reply, server._handle, () => {})
      else proc.send(reply, () => {})
    } catch {}
  })
}

module.exports = { askForSocket, shareSockets, ASK_TIMEOUT_MS }
