'use strict'

// Process ids (the `id` column). As in PM2, ids start again from 0 once no instance is left
// (`delete all`), but never while a removed instance may still have a process (a scale-down or
// delete still stopping it): an id names one process slot at a time in every reply, log line and
// metric. An app being renamed holds its ids until the new app takes them.
class Ids {
  constructor () {
    this.next = 0
    this.live = new Map() // id → its instance, while it is in an app or its processes still run
    this.held = new Set()
    this.releasing = new Set() // removed instances whose processes have not all exited
  }

  // id: a saved id to keep (a restore checks it is free), else the next free one.
  take (instance, id = null) {
    if (this.live.size === 0 && this.held.size === 0) this.next = 0
    if (id === null) {
      while (this.live.has(this.next) || this.held.has(this.next)) this.next++
      id = this.next++
    } else this.next = Math.max(this.next, id + 1)
    this.live.set(id, instance)
    return id
  }

  // A removed instance gives its id back once none of its processes runs; check() is called on
  // every status or change event of the model.
  release (instance) {
    this.releasing.add(instance)
    queueMicrotask(() => this.check())
  }

  check () {
    for (const inst of this.releasing) {
      if (inst.processes().length || inst.stopping) continue
      this.releasing.delete(inst)
      if (this.live.get(inst.id) === inst) this.live.delete(inst.id)
    }
  }

  isTaken (id) {
    return this.live.has(id)
  }

  hold (ids) {
    const added = ids.filter((id) => !this.held.has(id))
    for (const id of added) this.held.add(id)
    return () => { for (const id of added) this.held.delete(id) }
  }
}

module.exports = { Ids }
