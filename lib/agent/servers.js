'use strict'

// The servers this process listens with, known from preload on: listen() is tracked (a Set add,
// nothing per connection). The keep-alive drain closes their idle connections (drain.js) and the
// probes answer from them (probe.js). A server leaves the set once it has closed.
const servers = new Set()
const onListen = new Set() // functions called with a server as it starts listening (drain.js)
let tracking = false

function trackServers () {
  if (tracking) return
  tracking = true
  const net = require('node:net')
  const listen = net.Server.prototype.listen
  net.Server.prototype.listen = function listenTracked (...args) {
    if (!servers.has(this)) {
      servers.add(this)
      this.once('close', () => servers.delete(this))
    }
    for (const fn of onListen) fn(this)
    return listen.apply(this, args)
  }
}

module.exports = { trackServers, servers, onListen }
