'use strict'

// Trailing debounce of file changes: the first path of a burst is kept (it is what triggered
// the restart), later ones are counted, and `onFire(firstPath, count)` runs once `delay` ms
// after the last change. Pure apart from the injected clock.
function createDebouncer ({ delay, onFire, clock = { setTimeout, clearTimeout } }) {
  let timer = null
  let first = null
  let count = 0

  function push (file) {
    if (first === null) first = file
    count++
    if (timer) clock.clearTimeout(timer)
    timer = clock.setTimeout(fire, delay)
  }

  function fire () {
    const file = first
    const n = count
    timer = null
    first = null
    count = 0
    onFire(file, n)
  }

  function cancel () {
    if (timer) clock.clearTimeout(timer)
    timer = null
    first = null
    count = 0
  }

  return { push, cancel, get pending () { return timer !== null } }
}

module.exports = { createDebouncer }
