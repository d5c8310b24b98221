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

// A handle as the launchers make them: 'booted' once the app's entry has run, 'exit' once.
function fakeHandle () {
  const { EventEmitter } = require('node:events')
  const h = new EventEmitter()
  h.exited = false
  h.isBooted = false
  h.boot = () => { h.isBooted = true; h.emit('booted') }
  h.exit = () => { h.exited = true; h.emit('exit', { code: 0, signal: null }) }
  return h
}

function fakeTimers () {
  const timers = new Set()
  return {
    clock: { setTimeout: (fn, ms) => { const t = { fn, ms }; timers.add(t); return t }, clearTimeout: (t) => timers.delete(t) },
    fireAll: () => { const due = [...timers]; timers.clear(); for (const t of due) t.fn() },
    get count () { return timers.size }
  }
}

test('at most maxBooting forked processes are still booting: the next fork waits until one has booted or exited', async () => {
  const turns = manualTurns()
  const timers = fakeTimers()
  const pacer = new ForkPacer({ budgetMs: 1000, maxBooting: 2, bootHoldMs: 250, nextTurn: turns.nextTurn, now: () => 0, clock: timers.clock })
  const handles = []
  const got = []
  const forks = Array.from({ length: 4 }, (_, n) => pacer.slot().then(() => {
    const h = fakeHandle()
    handles.push(h)
    got.push(n)
    pacer.done(h)
  }))
  await settle()
  assert.deepEqual(got, [0, 1], 'two booting: the third waits, whatever the time budget says')
  turns.turn()
  await settle()
  assert.deepEqual(got, [0, 1], 'a new turn does not free a place')
  handles[0].boot()
  turns.turn()
  await settle()
  assert.deepEqual(got, [0, 1, 2], 'one booted: one more fork')
  handles[1].exit()
  turns.turn()
  await Promise.all(forks)
  assert.deepEqual(got, [0, 1, 2, 3], 'an exit frees its place too')
  assert.equal(pacer.booting, 2)
})

test('a process slow to boot holds its place bootHoldMs at most; one that booted before done() holds none', async () => {
  const turns = manualTurns()
  const timers = fakeTimers()
  const pacer = new ForkPacer({ budgetMs: 1000, maxBooting: 1, bootHoldMs: 250, nextTurn: turns.nextTurn, now: () => 0, clock: timers.clock })
  await pacer.slot()
  pacer.done(fakeHandle())
  let second = false
  const next = pacer.slot().then(() => { second = true })
  turns.turn()
  await settle()
  assert.equal(second, false)
  assert.equal(timers.count, 1)
  timers.fireAll() // 250 ms later, still booting
  turns.turn()
  await next
  assert.equal(second, true)
  const booted = fakeHandle()
  booted.isBooted = true
  pacer.done(booted)
  pacer.done(null) // a start that found the process up already, or a fork that failed
  assert.equal(pacer.booting, 0)
})
