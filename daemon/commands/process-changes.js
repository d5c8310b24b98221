'use strict'

const { projector } = require('../../lib/shared/process-fields')

// The `changes` form of the `processes` topic (daemon/commands/subscription.js): instead of the
// whole list after every metrics round, a subscriber gets `processChanges` events
// `{rows, removed}`: the rows of the processes it watches (after every round, as before), and the
// row of any other process only when it changed. What may have changed is not found by reading
// every process: a dirty set is fed by the model's events (status, restart, intent, a new pid,
// an instance added or removed, an instance's 'change') and by the metrics' 'sample' events (the
// ids sampled); a dirty summary row equal to the one last sent is not sent again. So a push costs
// what is shown plus what changed, not what the daemon manages. A change between rounds (a status
// moving) is pushed within CHANGE_PUSH_MS, coalesced; no timer runs while nothing changes.
//
// A push the connection had to drop (a subscriber not reading) puts its ids back in the dirty set:
// they go again with the next push, so the subscriber's copy never stays wrong.

const CHANGE_PUSH_MS = 250

class ProcessChanges {
  // summaryFields: what an unwatched row carries. push(event, data) → false when dropped.
  constructor ({ supervisor, metrics, fields, summaryFields, push, timers = { setTimeout, clearTimeout }, delayMs = CHANGE_PUSH_MS }) {
    Object.assign(this, { supervisor, metrics, push, timers, delayMs })
    this.full = fields ? projector(fields) : (row) => row
    this.summary = projector(summaryFields)
    this.watched = null // Set of ids, null: every process
    this.instances = new Map() // id → instance, kept by the model's events
    this.sent = new Map() // id → the summary row last sent as JSON ('' for a full row)
    this.dirty = new Set()
    this.gone = new Set() // ids removed since the last push
    this.started = false
    this.closed = false
    this.timer = null
    this.disposers = []
  }

  // Starts following the model. Nothing is pushed before snapshot().
  start (watched) {
    this.watched = watched
    for (const inst of this.supervisor.allInstances()) this.instances.set(inst.id, inst)
    const mark = (id) => this.mark(id)
    const ofInstance = (data, inst) => { if (inst && inst.id != null) mark(inst.id) }
    this.disposers.push(this.supervisor.subscribe({
      status: (change) => mark(change.id),
      restart: (r) => mark(r.id),
      intent: (data) => { if (data && data.id != null) mark(data.id) },
      change: ofInstance,
      process: (handle, inst) => ofInstance(null, inst),
      added: (inst) => { this.instances.set(inst.id, inst); mark(inst.id) },
      removed: (inst) => {
        if (this.instances.get(inst.id) !== inst) return
        this.instances.delete(inst.id)
        this.gone.add(inst.id)
        this.arm()
      }
    }))
    const onSample = (sampled) => {
      for (const id of sampled.keys()) this.dirty.add(id)
      this.flush({ watched: true })
    }
    this.metrics.on('sample', onSample)
    this.disposers.push(() => this.metrics.off('sample', onSample))
  }

  // Every current row (the subscribe reply), recorded as sent; pushes follow from now on.
  snapshot () {
    this.started = true
    return [...this.instances.keys()].sort((a, b) => a - b).map((id) => this.rowOf(id, true))
  }

  // The ids shown in full from now on (null: all). Rows leaving the set go again as summary rows.
  setWatched (next) {
    const before = this.watched
    this.watched = next
    if (before === null) for (const id of this.instances.keys()) this.dirty.add(id)
    else for (const id of before) this.dirty.add(id)
    this.arm()
  }

  isWatched (id) {
    return this.watched === null || this.watched.has(id)
  }

  mark (id) {
    this.dirty.add(id)
    this.arm()
  }

  arm () {
    if (this.timer || this.closed) return
    this.timer = this.timers.setTimeout(() => {
      this.timer = null
      this.flush({ watched: false })
    }, this.delayMs)
    this.timer.unref?.()
  }

  // The row of a process, recorded as sent. force: even when equal to the one last sent.
  rowOf (id, force) {
    const row = this.instances.get(id).toJSON(this.metrics)
    if (this.isWatched(id)) {
      this.sent.set(id, '')
      return this.full(row)
    }
    const summary = this.summary(row)
    const json = JSON.stringify(summary)
    if (!force && this.sent.get(id) === json) return null
    this.sent.set(id, json)
    return summary
  }

  // Pushes the dirty rows, and with watched: true (after a metrics round) the watched ones too.
  flush ({ watched }) {
    if (this.closed || !this.started) return
    this.timers.clearTimeout(this.timer)
    this.timer = null
    const ids = this.dirty
    this.dirty = new Set()
    if (watched) for (const id of (this.watched === null ? this.instances.keys() : this.watched)) ids.add(id)
    const rows = []
    const rowIds = []
    for (const id of ids) {
      if (!this.instances.has(id)) continue
      const row = this.rowOf(id, false)
      if (!row) continue
      rows.push(row)
      rowIds.push(id)
    }
    const removed = []
    for (const id of this.gone) {
      if (this.instances.has(id)) continue // the id was taken again: its new row is in rows
      removed.push(id)
      this.sent.delete(id)
    }
    this.gone.clear()
    if (!rows.length && !removed.length) return
    if (this.push('processChanges', { rows, removed }) !== false) return
    // dropped: everything in it goes again with the next push
    for (const id of rowIds) {
      this.sent.delete(id)
      this.dirty.add(id)
    }
    for (const id of removed) this.gone.add(id)
    this.arm()
  }

  close () {
    this.closed = true
    this.timers.clearTimeout(this.timer)
    this.timer = null
    for (const dispose of this.disposers.splice(0)) dispose()
  }
}

module.exports = { ProcessChanges, CHANGE_PUSH_MS }
