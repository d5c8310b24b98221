'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { createDebouncer } = require('../../daemon/policies/debounce')

// A manual clock: timers fire only when the test advances time.
function fakeClock () {
  let now = 0
  let seq = 0
  const timers = new Map()
  return {
    setTimeout: (fn, ms) => { const id = ++seq; timers.set(id, { fn, at: now + ms }); return id },
    clearTimeout: (id) => { timers.delete(id) },
    advance (ms) {
      const until = now + ms
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0]
        if (!due) break
        timers.delete(due[0])
        now = due[1].at
        due[1].fn()
      }
      now = until
    }
  }
}

test('a burst of changes fires once, delay after the last one, with the first path and the count', () => {
  const clock = fakeClock()
  const fired = []
  const d = createDebouncer({ delay: 1000, clock, onFire: (file, n) => fired.push([file, n]) })
  d.push('/app/a.js')
  clock.advance(600)
  d.push('/app/b.js')
  clock.advance(600)
  d.push('/app/c.js')
  clock.advance(999)
  assert.deepEqual(fired, [])
  assert.equal(d.pending, true)
  clock.advance(1)
  assert.deepEqual(fired, [['/app/a.js', 3]])
  assert.equal(d.pending, false)
})

test('changes after a fire start a new burst; cancel drops a pending one', () => {
  const clock = fakeClock()
  const fired = []
  const d = createDebouncer({ delay: 200, clock, onFire: (file, n) => fired.push([file, n]) })
  d.push('x')
  clock.advance(200)
  d.push('y')
  clock.advance(250)
  d.push('z')
  d.cancel()
  clock.advance(1000)
  assert.deepEqual(fired, [['x', 1], ['y', 1]])
})
