'use strict'

const { EventEmitter } = require('node:events')
const { ProcessTree } = require('./process-tree')

// One running OS process, whatever launched it. Callers never ask which mode it is: each
// launcher's subclass knows how to signal, release and stop its kind of process. Emits:
//   'online'                 the process is running
//   'booted'                 the app's entry has run (the agent says so after its first turn);
//                            for a process without the agent, the same moment as 'online'
//   'listening' (address)    a server in the worker accepts connections (cluster only)
//   'message' (msg)          IPC message from the process
//   'disconnect'             the IPC channel closed
//   'exit' ({ code, signal }) exactly once
class ProcessHandle extends EventEmitter {
  constructor ({ child }) {
    super()
    this.child = child
    this.pid = child.pid
    this.isOnline = false
    this.reportsBoot = false // the agent runs inside and will say when the app's entry has run
    this.isBooted = false
    this.exited = false
    this.exitInfo = null
    this.spawnError = null
    this.stdout = child.stdout
    this.stderr = child.stderr
    this.tag = null // set by the launcher: XPM_TREE=<tag> in the process's environment
    this.group = 0 // the process group the process leads (fork mode), 0 when it has none
  }

  // Whether readiness can be told by a `listening` event (else: online plus a settle).
  get announcesListening () { return false }

  get hasIpc () {
    return typeof this.child.send === 'function' && this.child.connected
  }

  markOnline () {
    if (this.isOnline || this.exited) return
    this.isOnline = true
    this.emit('online')
    if (!this.reportsBoot) this.markBooted()
  }

  markBooted () {
    if (this.isBooted || this.exited) return
    this.isBooted = true
    this.emit('booted')
  }

  // An IPC message from the process: any agent message means the app's entry has run.
  received (msg) {
    if (msg !== null && typeof msg === 'object' && msg['xpm:agent'] !== undefined) this.markBooted()
    this.emit('message', msg)
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

  // Step one of a graceful stop: stop handing the process new work. Resolves once it has let go
  // (or at once when there is nothing to let go of).
  release () {
    return Promise.resolve()
  }

  // The process and everything it started (see process-tree.js), for a stop to end all of it;
  // null for a handle without a real process behind it.
  processTree () {
    if (!this.tag) return null
    return new ProcessTree({ leaderPid: () => (this.exited ? 0 : this.pid), tag: this.tag, group: this.group, ...(this.pollMs ? { pollMs: this.pollMs } : {}) })
  }

  signal (sig) {
    if (this.exited) return false
    try {
      process.kill(this.pid, sig)
      return true
    } catch {
      return false
    }
  }
}

module.exports = { ProcessHandle }
