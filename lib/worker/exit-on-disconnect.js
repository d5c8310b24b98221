'use strict'

// A fork-mode worker whose daemon went away would otherwise live on as an orphan, holding its
// port, and a restarted daemon could not start the app again. So once the IPC channel is gone
// the worker exits with code 0 after a short grace that lets the app's own 'disconnect' handlers
// finish what they started (closing a server, flushing a file).
//
// The agent notices the loss by polling process.connected on its report timer instead of
// listening: in Node 20 a process.on('disconnect') listener refs the channel and keeps an app
// alive that would otherwise exit, and process.channel.unref() would in turn stop an app's own
// process.on('message') from keeping it alive.
//
// Cluster workers are left alone: Node exits them itself when the primary disconnects
// unexpectedly, and after a deliberate worker.disconnect() they must drain and exit on their own.
function exitAfterDisconnect ({ graceMs, exit = process.exit }) {
  // isWorker, not NODE_UNIQUE_ID: Node deletes that variable before preloads run.
  if (require('node:cluster').isWorker) return false
  setTimeout(() => exit(0), graceMs).unref()
  return true
}

module.exports = { exitAfterDisconnect }
