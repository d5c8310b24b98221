'use strict'

// Commands that name an app being deleted are handed to the model once that delete is done, one
// after another in the order they arrived (a start and a stop sent after a delete: the stop
// still comes last, and cancels that start; the last word wins). enter() hands one command
// over, synchronously, and returns its promise. check() runs before each (the daemon may be
// shutting down by then).
class DeleteWaits {
  constructor (check = () => {}) {
    this.check = check
    this.waits = new WeakMap() // app being deleted → the last command queued behind its delete
  }

  after (app, enter) {
    const before = this.waits.get(app) ?? app.lane.idle()
    let command
    const turn = before.then(() => {
      this.check()
      command = enter()
    })
    this.waits.set(app, turn.catch(() => {}))
    return turn.then(() => command)
  }
}

module.exports = { DeleteWaits }
