'use strict'

// Which app's workers listen on which TCP address and port, in this daemon (one home). Two apps
// on one port would split its new connections between them without a word: with round-robin the
// daemon's one socket hands them to the workers of both (Node's cluster keys a shared socket by
// address and port, not by app), with reuse_port the kernel spreads them over both apps'
// sockets. So the worker that listens second, where a worker of another app listens already, is
// refused: stopped at once (drained: what it was handed is answered), its instance errored (a
// restart would only be refused again), and its start, restart or reload fails, naming the app
// that has the port (wait-ready.js: XPM_ERR_PORT_TAKEN). Workers of one app share as before.
const UNSPECIFIED = new Set([undefined, null, '', '::', '0.0.0.0'])

// Whether two listens take the same connections: one port, and one address, or either on every
// address (a wildcard takes what a specific address of the port does not).
const overlaps = (a, b) => a.port === b.port && (UNSPECIFIED.has(a.address) || UNSPECIFIED.has(b.address) || a.address === b.address)

const where = ({ address, port }) => UNSPECIFIED.has(address) ? `port ${port}` : `${address.includes(':') ? `[${address}]` : address}:${port}`

class PortClaims {
  #claims = [] // { handle, app, label, address, port }

  // A worker of `app` listens on `address` ({ address, port }, as cluster's `listening` or the
  // agent gives it): null when that is its app's alone (recorded until the worker disconnects
  // or exits), or the claim of the other app's worker that listens there already.
  claim (handle, app, label, address) {
    const port = Number(address?.port)
    if (!Number.isInteger(port) || port < 1 || port > 65535) return null // a Unix socket, port 0
    const mine = { handle, app, label, address: address.address ?? null, port }
    const taken = this.#claims.find((c) => c.app !== app && !c.handle.exited && overlaps(c, mine))
    if (taken) return { ...taken, where: where(mine) }
    if (!this.#claims.some((c) => c.handle === handle)) {
      const release = () => { this.#claims = this.#claims.filter((c) => c.handle !== handle) }
      handle.once('exit', release)
      handle.once('disconnect', release)
    }
    this.#claims.push(mine)
    return null
  }
}

// Instance#fork: a process of `inst` that listens claims its port for its app, or is refused.
function watchListening (inst, handle) {
  handle.on('listening', (address) => {
    const taken = handle.portTaken ? null : inst.context.ports?.claim(handle, inst.app, `${inst.label}, pid ${handle.pid}`, address)
    if (!taken) {
      if (!handle.portTaken) inst.app.markListening()
      return
    }
    handle.markPortTaken(`listened on ${taken.where}, where app "${taken.app.name}" listens already (${taken.label}); it was stopped: two apps on one port would split its connections between them`)
    inst.refusePort(handle, `port taken: ${taken.where} is app "${taken.app.name}"'s`)
  })
}

module.exports = { PortClaims, watchListening }
