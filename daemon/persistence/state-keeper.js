'use strict'

const { writeFileAtomic } = require('../../lib/shared/state/atomic-write')
const { serializeState } = require('../../lib/shared/state/state-format')
const { appsSnapshot, processesSnapshot, StartTimes } = require('./snapshot')

// Keeps XPM_HOME/state.json equal to the daemon's desired state. A change of intent is saved at
// once. What is not one (a new pid, an exit, a status) is saved no sooner than gapMs after the
// last write began: a 'forked' process at once if that is past, any other 'change' after a short
// debounce. So a crash loop costs one write a gap, not two a restart, and each pid is on disk
// within gapMs of its fork. A pid a daemon crash within that gap left out is still found by the
// next daemon through its tree tag (reap-orphans.js); an app with `treekill: false`, whose
// processes no tag sweep ends, has its pids saved at once. Writes never overlap, a write covers
// every change before it, and a burst of changes costs one write. The previous write stays as
// state.json.bak, so a damaged state.json (a disk error, a hand edit) does not cost the next
// daemon its orphan reaping.
// At shutdown the state is frozen first (stopping every app is not a change of mind) and marked
// clean, so the next daemon knows there is nothing to recover.

// resolved at each call, so a test's mocked timers apply
const globalTimers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t) }

class StateKeeper {
  constructor ({ file, supervisor, daemon = null, debounceMs = 100, gapMs = 1000, timers = globalTimers, write = writeFileAtomic, startTimes = new StartTimes(), now = Date.now, logger = null }) {
    this.file = file
    this.supervisor = supervisor
    this.daemon = daemon
    this.debounceMs = debounceMs
    this.gapMs = gapMs
    this.timers = timers
    this.lastWriteAt = -Infinity
    this.write = write
    this.startTimes = startTimes
    this.now = now
    this.logger = logger
    this.timer = null
    this.queued = null
    this.chain = Promise.resolve()
    this.frozenApps = null
    this.clean = false
    this.failing = false
    this.inherited = [] // processes of a crashed predecessor not ended yet (persistence.run)
    this.onChange = () => this.schedule(this.debounceMs, this.gapMs)
    this.onForked = ({ instance } = {}) => {
      if (instance?.spec?.treekill === false) this.onIntent()
      else this.schedule(0, this.gapMs)
    }
    // A change of the intent is written at once: the reply to the command that made it waits for
    // this write (flush), so an acknowledged command is never lost to a crash.
    this.onIntent = () => { if (!this.frozenApps) this.save() }
  }

  start () {
    this.unsubscribe = this.supervisor.subscribe({ change: this.onChange, forked: this.onForked, intent: this.onIntent })
    return this.save()
  }

  // A write in delayMs, and no sooner than gapMs after the last write began; a timer already
  // set stands (it fires within max(debounceMs, gapMs) of any change).
  schedule (delayMs, gapMs = 0) {
    if (this.timer || this.frozenApps) return
    // clamped: a wall clock set back must not hold the write back
    const wait = Math.min(Math.max(delayMs, this.lastWriteAt + gapMs - this.now()), Math.max(delayMs, gapMs))
    if (wait <= 0) return this.save()
    this.timer = this.timers.setTimeout(() => {
      this.timer = null
      this.save()
    }, wait)
  }

  // Resolves once a write that includes every change made before the call has finished.
  save () {
    this.timers.clearTimeout(this.timer) // the write below covers what the timer was for
    this.timer = null
    if (this.queued) return this.queued
    const queued = this.chain.then(() => {
      this.queued = null
      return this.writeOnce()
    })
    this.queued = queued
    this.chain = queued.catch(() => {})
    return queued
  }

  async writeOnce () {
    this.lastWriteAt = this.now()
    const apps = this.frozenApps ?? appsSnapshot(this.supervisor)
    const processes = [...this.inherited, ...await processesSnapshot(this.supervisor, this.startTimes)]
    const text = serializeState({ apps, processes, cleanShutdown: this.clean, daemon: this.daemon, now: this.now })
    try {
      await this.write(this.file, text, { backup: true }) // state.json.bak: the save before, for a damaged state.json
      if (this.failing) this.logger?.info({ event: 'state-saved', file: this.file }, 'saving the state works again')
      this.failing = false
    } catch (err) {
      // logged once per streak: a full disk must not flood the daemon log
      if (!this.failing) this.logger?.error({ event: 'state-save-failed', file: this.file, err }, `could not save the state: ${err.message}`)
      this.failing = true
    }
  }

  inherit (records) {
    this.inherited = records
  }

  // Resolves once every change made before the call is on disk (a no-op while frozen: the
  // shutdown already wrote its final intent).
  flush () {
    return this.frozenApps ? this.chain : this.save()
  }

  // Shutdown, step 1: the desired state as it is now, marked clean.
  freeze () {
    this.timers.clearTimeout(this.timer)
    this.timer = null
    this.unsubscribe?.()
    this.frozenApps = appsSnapshot(this.supervisor)
    this.clean = true
    return this.save()
  }

  // Shutdown, step 2 (after every app stopped): the same apps, no processes left to look for.
  close () {
    return this.save()
  }
}

module.exports = { StateKeeper }
