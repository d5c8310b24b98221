'use strict'

const { writeFileAtomic } = require('../../lib/shared/state/atomic-write')
const { serializeState } = require('../../lib/shared/state/state-format')
const { appsSnapshot, processesSnapshot, StartTimes } = require('./snapshot')

// Keeps XPM_HOME/state.json equal to the daemon's desired state: every supervisor 'change' is
// saved after a short debounce and every 'forked' process at once; writes never overlap, and a
// burst of changes costs one write. The previous write stays as state.json.bak, so a damaged
// state.json (a disk error, a hand edit) does not cost the next daemon its orphan reaping.
// At shutdown the state is frozen first (stopping every app is not a change of mind) and marked
// clean, so the next daemon knows there is nothing to recover.
class StateKeeper {
  constructor ({ file, supervisor, daemon = null, debounceMs = 100, write = writeFileAtomic, startTimes = new StartTimes(), now = Date.now, logger = null }) {
    this.file = file
    this.supervisor = supervisor
    this.daemon = daemon
    this.debounceMs = debounceMs
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
    this.onChange = () => this.schedule()
    // A new OS process is written down at once (no debounce; writes still coalesce), so a
    // daemon killed right after a fork leaves a state file the next daemon can reap it by.
    this.onForked = () => { if (!this.frozenApps) this.save() }
    // so is a change of the intent: the reply to the command that made it waits for this write
    // (flush), so an acknowledged command is never lost to a crash
    this.onIntent = this.onForked
  }

  start () {
    this.unsubscribe = this.supervisor.subscribe({ change: this.onChange, forked: this.onForked, intent: this.onIntent })
    return this.save()
  }

  schedule () {
    if (this.timer || this.frozenApps) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.save()
    }, this.debounceMs)
  }

  // Resolves once a write that includes every change made before the call has finished.
  save () {
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
    clearTimeout(this.timer)
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
