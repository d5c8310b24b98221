'use strict'

// `xpm bridge`, run on a host by a fleet command's ssh (lib/cli/fleet/connect.js): stdin and stdout
// joined to this user's daemon socket, the daemon started first if none runs (as every command
// does). Bytes pass unchanged in both directions, the daemon's hello first: the daemon sees one
// more local client and refuses what it refuses any other.
const net = require('node:net')

async function bridge (ctx) {
  const { io } = ctx
  // connect() starts the daemon and checks its protocol; the bridged connection is a new one,
  // so its hello reaches the other end.
  const probe = await io.connect({ autoStart: true })
  probe.close()
  const socket = net.createConnection(io.paths().socket)
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  socket.on('error', () => socket.destroy())
  socket.pipe(io.stdout, { end: false })
  io.stdin.pipe(socket)
  await new Promise((resolve) => socket.once('close', resolve))
  io.stdin.unpipe(socket)
  io.stdin.destroy?.() // ssh's side may still be open: nothing more will be read from it
}

module.exports = { bridge }
