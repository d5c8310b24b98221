'use strict'

const { classify, exitCause } = require('./causes')
const { createJournalStore, MAX_ENTRIES } = require('./store')
const { whatHappened } = require('./what-happened')

// The restart journal (`xpm why`): every exit and every restart of every process, with its cause,
// written under XPM_HOME/journal (store.js). It only listens to the supervisor's events and
// never writes an app's or an instance's fields:
//   'exit'            an OS process ended: its code or signal, who ended it (xpm and why, a
//                     `xpm sendSignal`, a signal from outside, or itself), how long it ran, what
//                     follows (restart in N ms, errored, stopped), the last LINES lines it printed
//   'restart'         a counted restart and its reason (crash, the user's command, reload, watch,
//                     memory, cron, liveness, watchdog, heap)
//   'replace-failed'  a reload's replacement was rolled back, and why
//   'dependency-failed' the instance was not started: a depends_on dependency failed, and why
//   'warning'         a process went online with a warning (wait_ready and no 'ready' message;
//                     or still booting at listen_timeout: cause.kind 'slow_start')
// An entry: { at, app, id, instance, event, pid, cause: { kind, detail, by? }, ... }.
const LINES = 20
const LINE_CHARS = 300
const PIPE_WAIT_MS = 300 // for the last lines of a process to reach the log sink

class Journal {
  constructor ({ supervisor, logSink = null, dir, store = null, logger = null, clock = Date.now, max = MAX_ENTRIES }) {
    this.supervisor = supervisor
    this.logSink = logSink
    this.clock = clock
    this.store = store ?? createJournalStore({ dir, max, logger })
    this.last = new Map() // instance id → its newest entry (for `xpm show`), in this daemon's life
    this.closed = false
    this.pending = new Set()
    this.unsubscribe = supervisor.subscribe({
      exit: (e) => this.onExit(e),
      restart: (r) => this.onRestart(r),
      'replace-failed': (f) => this.onReplaceFailed(f),
      removed: (inst) => this.onRemoved(inst),
      status: (s) => this.onStatus(s),
      'dependency-failed': (d) => this.onDependencyFailed(d)
    })
  }

  record (entry) {
    if (this.closed) return
    this.last.set(entry.id, entry)
    this.track(this.store.append(entry.app, entry))
  }

  track (job) {
    this.pending.add(job)
    job.finally(() => this.pending.delete(job))
  }

  base (e, event) {
    return { at: this.clock(), app: e.name, id: e.id, instance: e.instance, event }
  }

  onExit (e) {
    const entry = {
      ...this.base(e, 'exit'),
      pid: e.pid,
      code: e.code,
      signal: e.signal,
      cause: exitCause(e),
      ranMs: e.ranMs,
      role: e.role,
      next: e.next ?? null,
      ...(e.delay !== undefined ? { delay: e.delay } : {}),
      ...(e.next === 'errored' || e.next === 'stopped' ? { reason: e.reason ?? null } : {})
    }
    // The entry keeps its place in time; the lines come once the pipes have been read.
    this.last.set(entry.id, entry)
    this.track(lastLines(this.logSink, e).catch(() => []).then((lines) => this.record({ ...entry, lines })))
  }

  onRestart (r) {
    const inst = this.supervisor.apps.get(r.name)?.instances.find((i) => i.id === r.id)
    this.record({ ...this.base({ ...r, instance: r.instance }, 'restart'), pid: inst?.pid || null, cause: classify(r.reason), restarts: inst?.restarts ?? null })
  }

  onReplaceFailed (f) {
    const reason = String(f.reason).replace(/^replacement \S+ \(pid \d+\) /, '') // 'was not ready after …'
    this.record({ ...this.base(f, 'reload-failed'), pid: f.pid, oldPid: f.oldPid, cause: classify(f.cause), reason })
  }

  onDependencyFailed (d) {
    this.record({ ...this.base(d, 'dependency-failed'), pid: null, dependency: d.dependency, reason: d.reason })
  }

  onStatus (s) {
    if (!s.warning) return
    const inst = this.supervisor.apps.get(s.name)?.instances.find((i) => i.id === s.id)
    this.record({ ...this.base({ ...s, instance: inst?.index ?? null }, 'warning'), pid: s.pid || null, cause: { kind: s.warningKind ?? 'wait_ready', detail: s.warning } })
  }

  // `xpm delete` of a whole app forgets its journal (a new app of that name starts afresh).
  onRemoved (inst) {
    this.last.delete(inst.id)
    const app = inst.app
    if (!app?.deleting || app.instances.length > 0) return
    // after the entries of its last exits (the stop before the removal) are written
    Promise.all([...this.pending]).then(() => {
      const now = this.supervisor.apps.get(app.name)
      if (!now || now === app) this.store.remove(app.name)
    })
  }

  // The journal of these instances (an app's, or one process's), newest first.
  async entries ({ app, ids = null, limit = MAX_ENTRIES }) {
    await Promise.all([...this.pending])
    const all = await this.store.read(app)
    const mine = ids ? all.filter((e) => ids.has(e.id)) : all
    // by time (an exit is written once its last lines are read, after what followed it)
    return mine.reverse().sort((a, b) => b.at - a.at).slice(0, limit)
  }

  // The newest entry of each instance (for `xpm show`): from memory, else from its app's file.
  async lastFor (instances) {
    const out = new Map()
    const missing = new Map()
    for (const inst of instances) {
      if (this.last.has(inst.id)) out.set(inst.id, this.last.get(inst.id))
      else {
        if (!missing.has(inst.name)) missing.set(inst.name, [])
        missing.get(inst.name).push(inst)
      }
    }
    await Promise.all([...missing].map(async ([app, list]) => {
      const all = await this.store.read(app)
      for (const inst of list) {
        const found = all.findLast((e) => e.id === inst.id && e.instance === inst.index)
        if (found) out.set(inst.id, found)
      }
    }))
    return out
  }

  idle () {
    return Promise.all([...this.pending]).then(() => this.store.idle())
  }

  close () {
    this.closed = true
    this.unsubscribe()
  }
}

// The last lines the process wrote, once its pipes have been read (or PIPE_WAIT_MS passed).
async function lastLines (logSink, { name, instance, id, pid, handle }) {
  if (!logSink) return []
  await Promise.all([handle?.stdout, handle?.stderr].map((stream) => waitClosed(stream, PIPE_WAIT_MS)))
  const lines = logSink.recent({ name, instance, id, pipes: [handle?.stdout, handle?.stderr] }, LINES * 4)
  return whatHappened(lines.filter((l) => l.pid === pid), LINES).map((l) => ({
    stream: l.stream,
    line: l.line.length > LINE_CHARS ? l.line.slice(0, LINE_CHARS - 1) + '…' : l.line
  }))
}

function createJournal (options) {
  return new Journal(options)
}

function waitClosed (stream, ms) {
  if (!stream || stream.closed || stream.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done () {
      clearTimeout(timer)
      stream.off('close', done)
      resolve()
    }
    stream.once('close', done)
  })
}

module.exports = { createJournal, Journal, LINES }
