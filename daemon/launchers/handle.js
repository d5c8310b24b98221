'use strict'

const { EventEmitter } = require('node:events')

// One running OS process, whatever launched it. Emits:
//   'online'                 the process is running
//   'listening' (address)    cluster mode: a server in the worker is accepting connections
//   'message' (msg)          IPC message from the process
//   'exit' ({ code, signal }) exactly once
class ProcessHandle extends EventEmitter {
  constructor ({ mode, child, worker = null }) {
    super()
    this.mode = mode
    this.child = child
    this.worker = worker
    this.pid = child.pid
    this.exited = false
    this.exitInfo = null
    this.stdout = child.stdout
    this.stderr = child.stderr
  }

  get hasIpc () {
    return typeof this.child.send === 'function' && this.child.connected
  }

  markExited (code, signal) {
    if (this.exited) return
    this.exited = true
    this.exitInfo = { code, signal }
    this.emit('exit', this.exitInfo)
  }

  send (message) {
    if (!this.hasIpc) return false
    try {
      return this.child.send(message)
    } catch {
      return false
    }
  }

  // Cluster: stop routing new connections to this worker and let it close its servers.
  disconnect () {
    if (this.worker && this.worker.isConnected()) this.worker.disconnect()
  }

  signal (sig) {
    if (this.exited) return false
    try {
      // Fork mode children lead their own process group so a shell's children get the signal too.
      if (this.mode === 'fork' && this.child.spawnargs && this.groupLeader) process.kill(-this.pid, sig)
      else process.kill(this.pid, sig)
      return true
    } catch {
      return false
    }
  }
}

module.exports = { ProcessHandle }
