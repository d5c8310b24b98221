'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { RULES, CANCELLABLE } = require('./overlap-rules')

// One app's operations, one at a time, in arrival order, with cancellation by the rules of
// overlap-rules.js. An operation is `fn(signal)`: it must stop acting once `signal` is aborted
// (every wait it makes is abortable or bounded), so a cancelling operation waits only briefly.
class OpLane {
  constructor (name) {
    this.name = name
    this.ops = [] // running first, then queued
    this.tail = Promise.resolve()
  }

  get busy () {
    return this.ops.length > 0
  }

  // coalesce: a key; while an operation with the same key is still queued (not running), a new
  // one is not added and the caller shares its result (policy restarts fire in bursts).
  run (kind, fn, { coalesce = null } = {}) {
    const rule = RULES[kind]
    if (!rule) throw new Error(`no overlap rule for ${kind}`)
    if (coalesce) {
      const queued = this.ops.find((op) => op.coalesce === coalesce && !op.running)
      if (queued) return queued.promise
    }
    if (rule === 'cancel') this.cancel(kind)
    const op = { kind, coalesce, running: false, controller: new AbortController() }
    const signal = op.controller.signal
    op.promise = this.tail.then(() => {
      signal.throwIfAborted()
      op.running = true
      return fn(signal)
    })
    op.done = op.promise.then(() => {}, () => {})
    this.tail = op.done
    this.ops.push(op)
    op.done.then(() => { this.ops.splice(this.ops.indexOf(op), 1) })
    return op.promise
  }

  // A stop or delete of some of the app's instances: runs at once, beside the operation under
  // way, and cancels nothing (the instances' intent aborts the work on them; overlap-rules.js).
  // Later operations do not wait for it; an instance being stopped is waited for by whoever
  // starts it again (Instance#start).
  runBeside (kind, fn) {
    if (RULES[kind] !== 'cancel') throw new Error(`${kind} cannot run beside other operations`)
    return Promise.resolve().then(fn)
  }

  cancel (by) {
    for (const op of this.ops) {
      if (!CANCELLABLE.has(op.kind) || op.controller.signal.aborted) continue
      op.controller.abort(new XpmError('XPM_ERR_CANCELLED', `${op.kind} of ${this.name} cancelled by ${by}`,
        { details: { app: this.name, operation: op.kind, cancelledBy: by } }))
    }
  }

  // Resolves once everything queued so far has finished.
  idle () {
    return this.tail
  }
}

module.exports = { OpLane }
