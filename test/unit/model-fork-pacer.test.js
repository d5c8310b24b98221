'use strict'

// The daemon forks only as many processes per turn of its event loop as fit in a small time
// budget (daemon/model/fork-pacer.js): a start of 100 apps used to fork all of them in one turn
// and stall the loop for 2.4 s. An injected clock stands for the time forks take.
const test = require('node:test')
const assert = require('node:assert/strict')
const { ForkPacer } = require('../../daemon/model/fork-pacer')

function manualTurns () {
  const pending = []
  return { nextTurn: (fn) => pending.push(fn), turn: () => { const fns = pending.splice(0); for (const fn of fns) fn() } }
}

const settle = async () => { for (let i = 0; i < 5; i++) await Promise.resolve() }

// Starts `count` holders that each "fork" for forkMs of the clock, then say done().
function startForks (pacer, clock, count, forkMs, got, signals = []) {
  return Array.from({ length: count }, (_, n) => pacer.slot(signals[n]).then(() => {
    clock.t += forkMs
    got.push(n)
    pacer.done()
  }))
}

test('forks go one after another in a turn until they have taken the budget; the rest follow turn by turn, in order', async () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const pacer = new ForkPacer({ budgetMs: 20, nextTurn: turns.nextTurn, now: () => clock.t })
  const got = []
  const forks = startForks(pacer, clock, 7, 8, got)
  await settle()
  assert.deepEqual(got, [0, 1, 2], 'three forks of 8 ms in a 20 ms turn (the third starts at 16 ms)')
  turns.turn()
  await settle()
  assert.deepEqual(got, [0, 1, 2, 3, 4, 5])
  turns.turn()
  await Promise.all(forks)
  assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6])
})

test('a fork slower than the budget still goes, one per turn', async () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const pacer = new ForkPacer({ budgetMs: 20, nextTurn: turns.nextTurn, now: () => clock.t })
  const got = []
  const forks = startForks(pacer, clock, 3, 50, got)
  await settle()
  assert.deepEqual(got, [0])
  turns.turn()
  await settle()
  assert.deepEqual(got, [0, 1])
  turns.turn()
  await Promise.all(forks)
  assert.deepEqual(got, [0, 1, 2])
})

test('a waiting start that is cancelled gives up its place and rejects with the reason', async () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const pacer = new ForkPacer({ budgetMs: 20, nextTurn: turns.nextTurn, now: () => clock.t })
  await pacer.slot()
  clock.t += 30
  pacer.done() // past the budget: the next slots wait for the next turn
  const controller = new AbortController()
  const cancelled = pacer.slot(controller.signal)
  const next = pacer.slot()
  controller.abort(new Error('stopped meanwhile'))
  await assert.rejects(cancelled, /stopped meanwhile/)
  turns.turn()
  await next
  assert.throws(() => pacer.slot(controller.signal), /stopped meanwhile/)
})
