'use strict'

// Preloaded into every Node worker with --require. Assembles the in-worker parts.
if (typeof process.send === 'function') {
  if (require('node:cluster').isWorker) {
    const onDrain = require('./drain').installDrain()
    // Cluster workers already keep their IPC channel referenced, so listening adds no liveness.
    process.on('message', onDrain)
  }
}
