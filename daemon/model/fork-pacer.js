'use strict'

const { abortable } = require('../../lib/shared/abortable')

// fork() is synchronous: each one costs the daemon's thread 7–12 ms (more as the daemon's
// address space grows), and the daemon is the cluster primary that accepts every connection of
// every clustered app. A start of 100 apps used to fork them all in one turn of the event loop
// and stall it for 2.4 s (bench: loop stalls). Starts take a slot here first: at most PER_TURN
// forks per turn, then the loop runs (I/O, accepted connections, replies) before the next ones.
// A process is still adopted in the tick it is forked (Instance#fork).
const PER_TURN = 4

class ForkPacer {
  constructor ({ perTurn = PER_TURN, nextTurn = setImmediate } = {}) {
    this.perTurn = perTurn
    this.nextTurn = nextTurn
    this.budget = perTurn
    this.queue = []
    this.scheduled = false
  }

  // Resolves when a fork may run now; rejects with the signal's reason if it is aborted first.
  slot (signal = null) {
    signal?.throwIfAborted()
    if (this.budget > 0 && !this.queue.length) {
      this.budget--
      this.schedule()
      return Promise.resolve()
    }
    const wait = new Promise((resolve) => this.queue.push({ resolve, signal }))
    this.schedule()
    return abortable(wait, signal)
  }

  schedule () {
    if (this.scheduled) return
    this.scheduled = true
    this.nextTurn(() => this.refill())
  }

  refill () {
    this.scheduled = false
    this.budget = this.perTurn
    while (this.budget > 0 && this.queue.length) {
      const next = this.queue.shift()
      if (next.signal?.aborted) continue // its start was cancelled meanwhile: no fork, no slot
      this.budget--
      next.resolve()
    }
    if (this.queue.length || this.budget < this.perTurn) this.schedule()
  }
}

module.exports = { ForkPacer, PER_TURN }
