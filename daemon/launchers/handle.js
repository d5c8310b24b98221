'use strict'

const { EventEmitter } = require('node:events')
const { ProcessTree } = require('./process-tree')
const { performance } = require('node:perf_hooks')
const { createLeftoverScan } = require('./leftover-scan')

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
//
// Its state is its own (#private): the launcher gives what it knows at construction, the model
// says what it did to the process through the mark and note methods below; everyone reads.
class ProcessHandle extends EventEmitter {
  #child
  #pid
  #isOnline = false
  #reportsBoot // the agent runs inside and will say when the app's entry has run
  #isBooted = false
  #exited = false
  #exitInfo = null
  #spawnError = null
  #tag // XPM_LAUNCH=<tag> in the process's environment; null: no tree is tracked (treekill: false)
  #treeTag // and XPM_TREE=<treeTag>, the instance's (lib/shared/tree-tag.js)
  #launches // the launches of this daemon whose process has not exited (launchers/tree-env.js)
  #group // the process group the process leads (fork mode), 0 when it has none
  #groupLeader
  #options // the app's kill_signal, kill_timeout, treekill, kill_retry_time, pid_file (app-options.js)
  #stopRequested = false // a stop (stop-process.js) owns the end of the tree
  #sweep = null // the end of what an exit left behind, while it runs (a promise)
  #leftovers // the daemon's sweeps (leftover-scan.js, made by createLaunchers)
  #launchStat // a promise of its /proc stat read right after the spawn (leftover-scan.js noteLaunch), or null
  #forkedAt = performance.now()
  // what the model did to it, for its exit event (model/instance-exit.js)
  #stopCause = null
  #signalSent = null
  #notReady = null
  #portTaken = null
  #isSpare = false

  constructor ({ child, tag = null, treeTag = null, reportsBoot = false, group = 0, groupLeader = false, launches = null, leftovers = null, launchStat = null, options = {} }) {
    super()
    this.#child = child
    this.#pid = child.pid
    this.#tag = tag
    this.#treeTag = treeTag
    this.#reportsBoot = reportsBoot
    this.#group = group
    this.#groupLeader = groupLeader
    this.#launches = launches
    this.#launchStat = launchStat
    this.#leftovers = leftovers || createLeftoverScan({ liveLaunches: launches || undefined })
    this.#options = { killSignal: 'SIGINT', killTimeout: 5000, treekill: true, pollMs: null, pidFile: null, ...options }
  }

  get child () { return this.#child }
  get pid () { return this.#pid }
  get stdout () { return this.#child.stdout }
  get stderr () { return this.#child.stderr }
  get isOnline () { return this.#isOnline }
  get reportsBoot () { return this.#reportsBoot }
  get isBooted () { return this.#isBooted }
  get exited () { return this.#exited }
  get exitInfo () { return this.#exitInfo }
  get spawnError () { return this.#spawnError }
  get tag () { return this.#tag }
  get launchStat () { return this.#launchStat }
  get treeTag () { return this.#treeTag }
  get group () { return this.#group }
  get groupLeader () { return this.#groupLeader }
  get killSignal () { return this.#options.killSignal }
  get killTimeout () { return this.#options.killTimeout }
  get treekill () { return this.#options.treekill }
  get pollMs () { return this.#options.pollMs }
  get pidFile () { return this.#options.pidFile }
  get stopRequested () { return this.#stopRequested }
  get sweep () { return this.#sweep }
  get forkedAt () { return this.#forkedAt }
  get stopCause () { return this.#stopCause }
  get signalSent () { return this.#signalSent }
  get notReady () { return this.#notReady }
  get portTaken () { return this.#portTaken }
  get isSpare () { return this.#isSpare }

  // ---- what the model says it did (model/instance.js, stop-process.js, port-claims.js) -------
  noteStopCause (cause) { this.#stopCause ??= cause } // the first reason a stop was asked for
  noteSignalSent (name) { this.#signalSent = name } // `xpm sendSignal`
  markStopRequested () { this.#stopRequested = true }
  markNotReady (reason) { this.#notReady = reason } // stopped: not ready within listen_timeout
  markPortTaken (reason) { this.#portTaken = reason } // stopped: another app listens on its port
  markSpare (spare) { this.#isSpare = spare } // a reload's replacement, until it takes the slot

  // ---- what the launcher says ---------------------------------------------------------------
  // The OS process exists (fork mode: child_process's 'spawn'); it leads its group when detached.
  markSpawned () {
    this.#pid = this.#child.pid
    if (this.#groupLeader) this.#group = this.#child.pid
    this.markOnline()
  }

  // It never started (ENOENT, EACCES): an exit without a code.
  markSpawnFailed (err) {
    this.#spawnError = err
    this.markExited(null, null)
  }

  // Whether readiness can be told by a `listening` event (else: online plus a settle).
  get announcesListening () { return false }

  get hasIpc () {
    return typeof this.#child.send === 'function' && this.#child.connected
  }

  markOnline () {
    if (this.#isOnline || this.#exited) return
    this.#isOnline = true
    this.emit('online')
    if (!this.reportsBoot) this.markBooted()
  }

  markBooted () {
    if (this.#isBooted || this.#exited) return
    this.#isBooted = true
    this.emit('booted')
  }

  // An IPC message from the process: any agent message means the app's entry has run.
  received (msg) {
    if (msg !== null && typeof msg === 'object' && msg['xpm:agent'] !== undefined) this.markBooted()
    this.emit('message', msg)
  }

  markExited (code, signal) {
    if (this.#exited) return
    this.#exited = true
    this.#exitInfo = { code, signal }
    if (this.tag) this.#launches?.delete(this.tag)
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
    const sweep = this.#leftovers.endLeftovers(query, {
      launch: this.tag,
      filter: (p) => !p.untracked && (p.launch === this.tag || !this.#launches?.has(p.launch)),
      killSignal: this.killSignal,
      killTimeout: this.killTimeout,
      ...(this.pollMs ? { pollMs: this.pollMs } : {})
    })
      .then((report) => {
        if (report.signalled.length) this.emit('leftovers', report)
        return report
      }, () => null)
      .finally(() => { if (this.#sweep === sweep) this.#sweep = null })
    this.#sweep = sweep
    return sweep
  }

  send (message) {
    if (!this.hasIpc) return false
    try {
      return this.#child.send(message)
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
