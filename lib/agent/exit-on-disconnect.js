'use strict'

// A fork-mode worker whose daemon went away would otherwise live on as an orphan, holding its
// port, and a restarted daemon could not start the app again. So once the IPC channel is gone
// the worker exits with code 0 after a short grace that lets the app's own 'disconnect' handlers
// finish what they started (closing a server, flushing a file). This holds for every app with
// the agent, with or without metrics.
//
// The loss is noticed by process.on('disconnect'), at once and with no timer. Node counts a
// 'disconnect' (or 'message') listener as a reason to keep the channel, and so the app, alive
// (child_process's _forkChild refs the channel on 'newListener'); the agent must not be that
// reason, so it gives its one count back at once (process.channel.unrefCounted(), the same
// counter Node's own removeListener hook uses) and takes it again should the app ever remove
// the listener (removeAllListeners), so the app's own listeners keep counting exactly as
// without the agent. process.channel.unref() would instead stop the app's own
// process.on('message') from keeping it alive. Where the counter is not there (a Node that no
// longer has it), an unref'd poll of process.connected does the same, once a second.
//
// The app's own process.disconnect() is the app's business: the channel closes, but the daemon
// is still there, so the agent does not exit the app (it used to, with code 0, and the app was
// restarted for ever). Such an app is then exited only once the daemon is really gone: its parent
// changes (an unref'd check of process.ppid once a second, only in such an app).
//
// Cluster workers are left alone: Node exits them itself when the primary disconnects
// unexpectedly, and after a deliberate worker.disconnect() they must drain and exit on their own.
// That is decided when the channel closes (cluster.isWorker, not NODE_UNIQUE_ID, which Node
// deletes before preloads run), so a fork-mode app never loads node:cluster for it.
const POLL_MS = 1000

// Wraps process.disconnect to tell the app's own call from the daemon's side closing; returns
// () => whether the app disconnected itself. Node itself calls process.disconnect() when the
// channel reads its end (channel.onread in node:internal/child_process): that call is the
// daemon's side closing, told apart by its caller.
function trackOwnDisconnect (proc = process) {
  let own = false
  const original = proc.disconnect
  if (typeof original !== 'function') return () => false
  proc.disconnect = function disconnect (...args) {
    if (!calledByNode(disconnect)) own = true
    return original.apply(this, args)
  }
  return () => own
}

function calledByNode (fn) {
  const limit = Error.stackTraceLimit
  const where = {}
  try {
    Error.stackTraceLimit = 1
    Error.captureStackTrace(where, fn)
  } finally {
    Error.stackTraceLimit = limit
  }
  return /\(?node:internal\/child_process[:)]/.test(String(where.stack))
}

// Calls onOrphaned once the parent (the daemon) is gone: process.ppid changes.
function onParentGone (onOrphaned, { proc = process, pollMs = POLL_MS } = {}) {
  const parent = proc.ppid
  const timer = setInterval(() => {
    if (proc.ppid === parent) return
    clearInterval(timer)
    onOrphaned()
  }, pollMs)
  timer.unref()
  return timer
}

function exitAfterDisconnect ({ graceMs, exit = process.exit, isClusterWorker = () => require('node:cluster').isWorker }) {
  if (isClusterWorker()) return false
  setTimeout(() => exit(0), graceMs).unref()
  return true
}

// Calls onDisconnect once, when the IPC channel closes, without keeping the process alive.
function onChannelClosed (onDisconnect, { proc = process, pollMs = POLL_MS } = {}) {
  if (typeof proc.send !== 'function') return null
  let called = false
  const fire = () => {
    if (called) return
    called = true
    onDisconnect()
  }
  const channel = proc.channel
  if (typeof channel?.refCounted === 'function' && typeof channel.unrefCounted === 'function') {
    const listener = () => fire()
    proc.on('disconnect', listener) // Node: refCounted()
    channel.unrefCounted()
    proc.on('removeListener', function giveBack (name, fn) {
      if (name !== 'disconnect' || fn !== listener) return
      proc.off('removeListener', giveBack)
      channel.refCounted() // Node's hook has just counted our listener out a second time
    })
    if (proc.connected !== true) fire()
    return { kind: 'event' }
  }
  const timer = setInterval(() => {
    if (proc.connected === true) return
    clearInterval(timer)
    fire()
  }, pollMs)
  timer.unref()
  return { kind: 'poll' }
}

module.exports = { exitAfterDisconnect, onChannelClosed, trackOwnDisconnect, onParentGone }
