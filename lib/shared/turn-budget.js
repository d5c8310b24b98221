'use strict'

const { performance } = require('node:perf_hooks')

// Work the daemon's thread spreads over turns of its event loop. The signals of a stop of many
// processes are the case: each kill() wakes a process that then competes for the daemon's core,
// and `xpm stop all` of 1,000 processes signalled them all in one turn and held the loop for
// 4.5 s (bench/findings.md). run(fn) calls fn at once while this turn has spent less than
// budgetMs on such work, else in a later turn, in the order asked; it resolves with fn's result.
// The first minPerTurn calls of a turn go at once however long they take (a stop of a few
// processes is never deferred), and at least one call per turn, however slow.
class TurnBudget {
  constructor ({ budgetMs = 5, minPerTurn = 16, nextTurn = setImmediate, now = () => performance.now() } = {}) {
    Object.assign(this, { budgetMs, minPerTurn, nextTurn, now })
    this.queue = []
    this.turnStart = null // when this turn's first call began
    this.calls = 0 // calls made this turn
    this.scheduled = false
  }

  run (fn) {
    if (!this.queue.length && this.inBudget()) {
      try {
        return Promise.resolve(this.call(fn))
      } catch (err) {
        return Promise.reject(err)
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ fn, resolve, reject })
      this.schedule()
    })
  }

  inBudget () {
    return this.turnStart === null || this.calls < this.minPerTurn || this.now() - this.turnStart < this.budgetMs
  }

  call (fn) {
    if (this.turnStart === null) {
      this.turnStart = this.now()
      this.calls = 0
      this.schedule() // a new budget next turn
    }
    this.calls++
    return fn()
  }

  schedule () {
    if (this.scheduled) return
    this.scheduled = true
    this.nextTurn(() => {
      this.scheduled = false
      this.turnStart = null
      while (this.queue.length && this.inBudget()) {
        const { fn, resolve, reject } = this.queue.shift()
        try {
          resolve(this.call(fn))
        } catch (err) {
          reject(err)
        }
      }
      if (this.queue.length) this.schedule()
    })
  }
}

module.exports = { TurnBudget }
