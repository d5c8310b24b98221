'use strict'

// The daemon forks at most a few processes per turn of its event loop (daemon/model/fork-pacer.js):
// a start of 100 apps used to fork all of them in one turn and stall the loop for 2.4 s.
const test = require('node:test')
const assert = require('node:assert/strict')
const { ForkPacer } = require('../../daemon/model/fork-pacer')

function manualTurns () {
  const pending = []
  return { nextTurn: (fn) => pending.push(fn), turn: () => { const fns = pending.splice(0); for (const fn of fns) fn() } }
}

test('at most perTurn slots are given in one turn; the rest follow turn by turn, in order', async () => {
  const turns = manualTurns()
  const pacer = new ForkPacer({ perTurn: 2, nextTurn: turns.nextTurn })
  const got = []
  const waits = Array.from({ length: 5 }, (_, n) => pacer.slot().then(() => got.push(n)))
  await Promise.resolve()
  assert.deepEqual(got, [0, 1], 'two at once')
  turns.turn()
  await Promise.resolve()
  assert.deepEqual(got, [0, 1, 2, 3])
  turns.turn()
  await Promise.all(waits)
  assert.deepEqual(got, [0, 1, 2, 3, 4])
})

test('a waiting slot whose start is cancelled gives up its place', async () => {
  const turns = manualTurns()
  const pacer = new ForkPacer({ perTurn: 1, nextTurn: turns.nextTurn })
  await pacer.slot()
  const controller = new AbortController()
  const cancelled = pacer.slot(controller.signal)
  const next = pacer.slot()
  controller.abort(new Error('stopped meanwhile'))
  await assert.rejects(cancelled, /stopped meanwhile/)
  turns.turn()
  await next
})
