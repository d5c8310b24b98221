'use strict'

const { EventEmitter } = require('node:events')
const { ProcessTree } = require('./process-tree')
const { endLeftovers } = require('./leftover-scan')
const { liveLaunches } = require('./tree-env')

// One running OS process, whatever launched it. Callers never ask which mode it is: each
// launcher's subclass knows how to signal, release and stop its kind of process. Emits:
//   'online'                 the process is running
//   'booted'                 the app's entry has run (the agent says so after its first turn);
//                            for a process without the agent, the same moment as 'online'
//   'listening' (address)    a server in the worker accepts connections (cluster only)
//   'message' (msg)          IPC message from the process
//   'disconnect'             the IPC channel closed
//   'exit' ({ code, signal }) exactly once
//   'leftovers' ({ signalled, killed, survived }) after an exit xpm did not ask for (a crash, an
//                            exit 0 of a self-daemonizing app), once the processes it left behind
//                            (its launch's tag) were ended; only when there were any
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
    this.tag = null // set by the launcher: XPM_LAUNCH=<tag> in the process's environment
    this.treeTag = null // and XPM_TREE=<treeTag>, the instance's (lib/shared/tree-tag.js)
    this.killSignal = 'SIGINT' // the app's kill_signal and kill_timeout (app-options.js)
    this.killTimeout = 5000
    this.stopRequested = false // a stop (stop-process.js) owns the end of the tree
    this.sweep = null // the end of what an exit left behind, while it runs (a promise)
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
    if (this.tag) liveLaunches.delete(this.tag)
    this.sweepLeftovers()
    this.emit('exit', this.exitInfo)
  }

  // The process exited without a stop: whatever still carries its launch's tag (a helper, a
  // worker pool, a detached daemon it started), or its instance's tree tag with no live launch
  // of this daemon (a leftover of an earlier launch of the slot), gets the app's stop signal now
  // and SIGKILL after its kill_timeout, so a crash loop does not pile up one helper per restart.
  // Not with treekill: false (no tag), nor during a stop (stop-process.js ends the tree itself).
  sweepLeftovers () {
    if (!this.tag || this.stopRequested || this.sweep) return this.sweep
    const query = this.treeTag ? { tree: this.treeTag } : { launch: this.tag }
    const sweep = endLeftovers(query, {
      launch: this.tag,
      filter: (p) => !p.untracked && (p.launch === this.tag || !liveLaunches.has(p.launch)),
      killSignal: this.killSignal,
      killTimeout: this.killTimeout,
      ...(this.pollMs ? { pollMs: this.pollMs } : {})
    })
      .then((report) => {
        if (report.signalled.length) this.emit('leftovers', report)
        return report
      }, () => null)
      .finally(() => { if (this.sweep === sweep) this.sweep = null })
    this.sweep = sweep
    return sweep
  }

  send (message) {
    if (!this.hasIpc) return false
    try {
      return this.child.send(message)
    } catch {
      return false
    }
  }

  // Step one of a graceful stop: stop handing the process new work and drain it (drain.js).
  // Resolves once it has let go (or at once when there is nothing to let go of).
  release ({ killTimeout } = {}) {
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
