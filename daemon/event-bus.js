'use strict'

const { EventEmitter } = require('node:events')
const { XpmError } = require('../lib/shared/errors')
const { isKnownEvent } = require('./events')

// The model's events, and the one way to observe them: subscribe({ eventName: fn, … }) puts the
// handlers on and returns dispose(), which takes exactly those off (safe to call twice). Every
// observer (policies, health, hooks, journal, persistence, the Prometheus exposition) subscribes
// this way and keeps only the dispose. The Supervisor is one (daemon/supervisor.js); a unit test
// drives an observer with a bare EventBus. Every name is in the catalogue (daemon/events.js): an
// emit, a subscribe or an on() of another name throws (a typo would otherwise be heard by no one).
class EventBus extends EventEmitter {
  subscribe (handlers) {
    const pairs = Object.entries(handlers).filter(([, fn]) => typeof fn === 'function')
    for (const [event] of pairs) checkName(event)
    for (const [event, fn] of pairs) this.on(event, fn)
    let disposed = false
    return () => {
      if (disposed) return
      disposed = true
      for (const [event, fn] of pairs) this.off(event, fn)
    }
  }

  emit (event, ...args) {
    checkName(event)
    return super.emit(event, ...args)
  }

  on (event, fn) {
    checkName(event)
    return super.on(event, fn)
  }

  addListener (event, fn) {
    return this.on(event, fn)
  }
}

function checkName (event) {
  if (!isKnownEvent(event)) throw new XpmError('XPM_ERR_INTERNAL', `The event "${String(event)}" is not in the catalogue (daemon/events.js)`)
}

module.exports = { EventBus }
