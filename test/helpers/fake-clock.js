'use strict'

// A manual clock for unit tests: time moves only when the test says so, and the timers due by
// then fire in order. `clock` (alias `timers`) is what the code under test takes as its
// setTimeout/clearTimeout. advance() lets promises settle between timers (a few turns of the
// event loop), so async rounds finish before the next timer fires.
const settle = async (turns = 5) => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve))
}

function fakeClock () {
  let t = 0
  const pending = new Set()
  const clock = {
    setTimeout (fn, ms) {
      const timer = { at: t + Math.max(0, ms), fn, unref () { return this }, hasRef: () => false }
      pending.add(timer)
      return timer
    },
    clearTimeout (timer) { pending.delete(timer) }
  }
  return {
    now: () => t,
    clock,
    timers: clock,
    get pending () { return pending.size },
    delays: () => [...pending].map((timer) => timer.at - t),
    // Synchronous: fires every timer due within ms, in order.
    advanceSync (ms) {
      const end = t + ms
      for (let next = due(end); next; next = due(end)) {
        pending.delete(next)
        t = next.at
        next.fn()
      }
      t = end
    },
    async advance (ms) {
      const end = t + ms
      await settle()
      for (let next = due(end); next; next = due(end)) {
        pending.delete(next)
        t = next.at
        next.fn()
        await settle()
      }
      t = end
      await settle()
    }
  }

  function due (end) {
    let next = null
    for (const timer of pending) if (timer.at <= end && (!next || timer.at < next.at)) next = timer
    return next
  }
}

module.exports = { fakeClock, settle }
