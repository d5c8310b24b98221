'use strict'

// reuse_port, in the daemon: when a worker is about to listen on an address and port, it asks
// whether another live worker of the same slot (app and instance number: during a reload, the
// worker it replaces) holds a socket on that address and port; if so, that worker sends its listening socket's handle
// and the daemon passes it on, then closes its own copy. The daemon never listens on it or
// accepts from it (a raw handle, not a server): it is only a courier, once per reload and port.
// The worker's side, and why: lib/agent/socket-handover.js.
const SHARE_TIMEOUT_MS = 4000

function send (child, message, handle) {
  return new Promise((resolve) => {
    try {
      const queued = handle ? child.send(message, handle, () => resolve(true)) : child.send(message, () => resolve(true))
      if (queued === false && !child.connected) resolve(false)
    } catch {
      resolve(false)
    }
  })
}

// One per daemon (the launchers' shared state, launchers/index.js).
class SocketHandover {
  #slots = new Map() // `${app}\0${index}` → Set of ClusterHandle (alive, reuse_port)
  #pending = new Map() // id → finish, for the share requests in flight
  #lastId = 0

  // Called by the cluster launcher for a reuse_port worker, in the tick it is forked.
  joinSlot (handle, appName, index) {
    const slots = this.#slots
    const key = `${appName}\0${index}`
    if (!slots.has(key)) slots.set(key, new Set())
    slots.get(key).add(handle)
    handle.once('exit', () => {
      const set = slots.get(key)
      set?.delete(handle)
      if (set?.size === 0) slots.delete(key)
    })
    handle.child.on('internalMessage', (msg, socket) => {
      if (msg === null || typeof msg !== 'object') return
      if (msg.cmd === 'NODE_XPM_SOCKET_SHARED') this.#onShared(msg, socket)
      else if (msg.cmd === 'NODE_XPM_SOCKET_ASK' && asksWell(msg)) this.#answer(handle, key, msg).catch(() => {})
    })
  }

  // Asks `holder` for its socket on `address` (null: no host) and `port`; resolves the handle or null.
  #shareFrom (holder, port, address) {
    const pending = this.#pending
    const child = holder.child
    const id = ++this.#lastId
    return new Promise((resolve) => {
      const finish = (handle) => {
        clearTimeout(timer)
        pending.delete(id)
        child.off('exit', onGone)
        resolve(handle)
      }
      const onGone = () => finish(null)
      const timer = setTimeout(onGone, SHARE_TIMEOUT_MS)
      pending.set(id, finish)
      child.once('exit', onGone)
      send(child, { cmd: 'NODE_XPM_SOCKET_SHARE', id, port, address }).then((sent) => { if (!sent) finish(null) })
    })
  }

  // A handle that comes after its request timed out is closed at once: the daemon must never keep
  // a socket of the port's group (nobody would accept the connections the kernel queues on it).
  #onShared (msg, handle) {
    const finish = this.#pending.get(msg.id)
    if (finish) finish(handle ?? null)
    else handle?.close?.()
  }

  async #answer (handle, key, msg) {
    const holder = [...(this.#slots.get(key) ?? [])].find((h) => h !== handle && !h.exited && h.hasIpc)
    const socket = holder ? await this.#shareFrom(holder, msg.port, msg.address ?? null) : null
    await send(handle.child, { cmd: 'NODE_XPM_SOCKET', id: msg.id }, handle.exited ? null : socket)
    socket?.close?.() // the worker holds its own copy now (or nobody needs it)
  }
}

const asksWell = (msg) => Number.isInteger(msg.port) && (msg.address === undefined || msg.address === null || (typeof msg.address === 'string' && msg.address.length <= 256))

module.exports = { SocketHandover }
