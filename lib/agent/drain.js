'use strict'

// Keep-alive draining for reload, inside cluster workers. Before the daemon disconnects an old
// worker it sends { cmd: 'NODE_XPM_DRAIN' }: Node delivers messages whose cmd starts with NODE_
// as 'internalMessage', so the app's own process.on('message') never sees it, and listening for
// it does not keep the process alive. From then on:
//  - every response carries `Connection: close`, so a client sends nothing more on that socket;
//  - server.close() (called by cluster's disconnect) no longer destroys idle keep-alive sockets:
//    a client may be writing its next request on one at that very moment, which is where
//    plain server.close() resets connections. An idle socket is instead answered once more
//    with `Connection: close`, or ends at the server's keepAliveTimeout.
// Nothing is installed until the message arrives; the app's code is not changed.
const DRAIN = 'NODE_XPM_DRAIN'

function installDrain ({ isMessage = (msg) => msg !== null && typeof msg === 'object' && msg.cmd === DRAIN } = {}) {
  let draining = false
  return function onMessage (msg) {
    if (draining || !isMessage(msg)) return false
    draining = true
    startDraining()
    return true
  }
}

function startDraining () {
  const http = require('node:http')
  const https = require('node:https')
  const keepIdleSockets = function closeIdleConnections () {}
  http.Server.prototype.closeIdleConnections = keepIdleSockets
  https.Server.prototype.closeIdleConnections = keepIdleSockets
  require('node:diagnostics_channel').subscribe('http.server.request.start', ({ response }) => {
    if (!response.headersSent) response.setHeader('connection', 'close')
  })
}

module.exports = { installDrain, startDraining, DRAIN }
