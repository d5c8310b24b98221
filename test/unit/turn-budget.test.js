'use strict'

// The signals of a stop of many processes take turns of the daemon's event loop
// (lib/shared/turn-budget.js): `xpm stop all` of 1,000 processes sent them in one turn and
// held the loop for 4.5 s. An injected clock stands for the time each kill() takes.
const test = require('node:test')
const assert = require('node:assert/strict')
const { TurnBudget } = require('../../lib/shared/turn-budget')

function manualTurns () {
  const pending = []
  return { nextTurn: (fn) => pending.push(fn), turn: () => { const fns = pending.splice(0); for (const fn of fns) fn() } }
}

const settle = async () => { for (let i = 0; i < 5; i++) await Promise.resolve() }

test('calls run at once while the turn is in budget, the rest turn by turn, in the order asked', async () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const budget = new TurnBudget({ budgetMs: 5, minPerTurn: 1, nextTurn: turns.nextTurn, now: () => clock.t })
  const ran = []
  const kill = (n) => () => { clock.t += 2; ran.push(n); return n }
  const results = Array.from({ length: 7 }, (_, n) => budget.run(kill(n)))
  assert.deepEqual(ran, [0, 1, 2], 'synchronously, inside the caller\'s turn: three of 2 ms (the third begins at 4 ms)')
  turns.turn()
  assert.deepEqual(ran, [0, 1, 2, 3, 4, 5])
  turns.turn()
  assert.deepEqual(ran, [0, 1, 2, 3, 4, 5, 6])
  assert.deepEqual(await Promise.all(results), [0, 1, 2, 3, 4, 5, 6], 'each resolves with what its call returned')
})

test('a call slower than the budget still runs, one per turn; a later turn starts a new budget', async () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const budget = new TurnBudget({ budgetMs: 5, minPerTurn: 1, nextTurn: turns.nextTurn, now: () => clock.t })
  const ran = []
  const slow = (n) => () => { clock.t += 50; ran.push(n) }
  const all = Promise.all([budget.run(slow(0)), budget.run(slow(1)), budget.run(slow(2))])
  assert.deepEqual(ran, [0])
  turns.turn()
  assert.deepEqual(ran, [0, 1])
  turns.turn()
  await all
  assert.deepEqual(ran, [0, 1, 2])
  turns.turn() // the turn that resets the budget
  budget.run(slow(3))
  assert.deepEqual(ran, [0, 1, 2, 3], 'nothing queued and a fresh turn: at once')
})

test('a call that throws rejects its own promise and leaves the others to run', async () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const budget = new TurnBudget({ budgetMs: 1, minPerTurn: 1, nextTurn: turns.nextTurn, now: () => clock.t })
  const boom = () => { clock.t += 2; throw new Error('ESRCH') }
  const first = budget.run(boom)
  const second = budget.run(boom)
  const third = budget.run(() => 'sent')
  await assert.rejects(first, /ESRCH/)
  turns.turn()
  await assert.rejects(second, /ESRCH/)
  turns.turn()
  assert.equal(await third, 'sent')
  await settle()
})

test('the first minPerTurn calls of a turn go at once, however long they take', () => {
  const turns = manualTurns()
  const clock = { t: 0 }
  const budget = new TurnBudget({ budgetMs: 5, minPerTurn: 4, nextTurn: turns.nextTurn, now: () => clock.t })
  const ran = []
  for (let n = 0; n < 6; n++) budget.run(() => { clock.t += 10; ran.push(n) })
  assert.deepEqual(ran, [0, 1, 2, 3])
  turns.turn()
  assert.deepEqual(ran, [0, 1, 2, 3, 4, 5])
})
