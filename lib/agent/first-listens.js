'use strict'

// The listens an app's entry starts in its first turn: the agent's 'booted' report waits for
// them (at most FIRST_LISTEN_WAIT_MS), so that a worker whose entry listens is judged on its
// listen, not on having booted. In a cluster worker a listen completes an IPC round trip (or a
// reuse_port hand-over) after the first turn; until then the daemon cannot tell where it listens,
// nor refuse it for listening on another app's port (daemon/model/port-claims.js) before the start
// reports it online. A listen that fails ends the process (an 'error' nobody handles) or is the
// app's to handle: no listener is added here, the wait just ends at its bound.
const FIRST_LISTEN_WAIT_MS = 2000

function trackFirstListens ({ net = require('node:net'), timers = globalThis } = {}) {
  let tracking = true
  const pending = new Set()
  let onSettled = null
  const settle = (server) => {
    pending.delete(server)
    if (!pending.size) onSettled?.()
  }
  const listen = net.Server.prototype.listen
  net.Server.prototype.listen = function listenTracked (...args) {
    if (tracking && !pending.has(this)) {
      pending.add(this)
      this.once('listening', () => settle(this))
    }
    return listen.apply(this, args)
  }
  // Resolves once the first turn's listens have listened, or FIRST_LISTEN_WAIT_MS have passed.
  const settled = () => {
    tracking = false
    if (!pending.size) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = timers.setTimeout(() => { onSettled = null; resolve() }, FIRST_LISTEN_WAIT_MS)
      timer.unref?.()
      onSettled = () => { timers.clearTimeout(timer); onSettled = null; resolve() }
    })
  }
  return { settled }
}

module.exports = { trackFirstListens, FIRST_LISTEN_WAIT_MS }
