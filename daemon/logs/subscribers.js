'use strict'

const { matches } = require('./history')

// Live listeners for log lines. Each is called synchronously per matching line; one that throws
// is logged once and stays subscribed, and never stops the others or the writing.
class Subscribers {
  constructor ({ logger = null } = {}) {
    this.logger = logger
    this.set = new Set()
    this.errors = 0
  }

  get size () {
    return this.set.size
  }

  add (filter, onLine) {
    const sub = { filter: filter || {}, onLine, failed: false }
    this.set.add(sub)
    return () => { this.set.delete(sub) }
  }

  publish (obj) {
    for (const sub of this.set) {
      if (!matches(sub.filter, obj)) continue
      try {
        sub.onLine(obj)
      } catch (err) {
        this.errors++
        if (!sub.failed) this.logger?.warn({ event: 'log-subscriber-error', err }, 'a log subscriber threw; it stays subscribed')
        sub.failed = true
      }
    }
  }

  clear () {
    this.set.clear()
  }
}

module.exports = { Subscribers }
