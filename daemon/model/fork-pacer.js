'use strict'

const { performance } = require('node:perf_hooks')

// fork() is synchronous: each one costs the daemon's thread 7–12 ms on a quiet machine, several
// times that on a loaded one (more as the daemon's address space grows), and the daemon is the
// cluster primary that accepts every connection of every clustered app. A start of 100 apps
// used to fork them all in one turn of the event loop and stall it for 2.4 s; then at most 4 per
// turn, 150–220 ms on a loaded machine (bench: loop stalls). Starts take a slot here first, one
// at a time: the holder forks, then says done(); the next one goes in the same turn while the
// turn's forks have taken less than BUDGET_MS, else in the next turn, after the loop ran (I/O,
// accepted connections, replies). At least one fork per turn, however slow. A process is still
// adopted in the tick it is forked (Instance#fork).
const BUDGET_MS = 20

class ForkPacer {
  constructor ({ budgetMs = BUDGET_MS, nextTurn = setImmediate, now = () => performance.now() } = {}) {
    Object.assign(this, { budgetMs, nextTurn, now })
    this.queue = []
    this.holding = false
    this.turnStart = null // when this turn's first slot was given
    this.scheduled = false
  }

  // Resolves when a fork may run now (call done() once it has, or given up); rejects with the
  // signal's reason if the start is aborted while waiting.
  slot (signal = null) {
    signal?.throwIfAborted()
    if (!this.holding && !this.queue.length && this.inBudget()) {
      this.take()
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, signal }
      this.queue.push(entry)
      signal?.addEventListener('abort', () => {
        const at = this.queue.indexOf(entry)
        if (at === -1) return // already given its slot: the holder sees the signal and says done()
        this.queue.splice(at, 1)
        reject(signal.reason)
      }, { once: true })
      if (!this.holding) this.schedule()
    })
  }

  // The holder forked (or did not need to): the next one now if the turn's budget allows.
  done () {
    this.holding = false
    if (this.inBudget()) this.next()
    else this.schedule()
  }

  inBudget () {
    return this.turnStart === null || this.now() - this.turnStart < this.budgetMs
  }

  take () {
    this.holding = true
    if (this.turnStart === null) {
      this.turnStart = this.now()
      this.schedule() // a new budget next turn
    }
  }

  next () {
    const entry = this.queue.shift()
    if (!entry) return
    this.take()
    entry.resolve()
  }

  schedule () {
    if (this.scheduled) return
    this.scheduled = true
    this.nextTurn(() => {
      this.scheduled = false
      this.turnStart = null
      if (!this.holding) this.next()
    })
  }
}

module.exports = { ForkPacer, BUDGET_MS }
