'use strict'

const { EventEmitter } = require('node:events')

// The model's events, and the one way to observe them: subscribe({ eventName: fn, … }) puts the
// handlers on and returns dispose(), which takes exactly those off (safe to call twice). Every
// observer (policies, health, hooks, journal, persistence, the Prometheus exposition) subscribes
// this way and keeps only the dispose. The Supervisor is one (daemon/supervisor.js); a unit test
// drives an observer with a bare EventBus.
class EventBus extends EventEmitter {
  subscribe (handlers) {
    const pairs = Object.entries(handlers).filter(([, fn]) => typeof fn === 'function')
    for (const [event, fn] of pairs) this.on(event, fn)
    let disposed = false
    return () => {
      if (disposed) return
      disposed = true
      for (const [event, fn] of pairs) this.off(event, fn)
    }
  }
}

module.exports = { EventBus }
