'use strict'

// The helpers written once for the CLI and the daemon: subscribe → dispose on the model's event
// bus, abortable waits, the bounded pool, waiting for a pid to be gone, the /proc stat parser.
const test = require('node:test')
const assert = require('node:assert/strict')
const { EventBus } = require('../../daemon/event-bus')
const { abortable } = require('../../lib/shared/abortable')
const { mapLimited } = require('../../lib/shared/map-limited')
const { waitPidGone } = require('../../lib/shared/pid')
const { parseStat, readProcStat } = require('../../lib/shared/proc-stat')

test('subscribe puts every handler on and the dispose takes exactly those off, once', () => {
  const bus = new EventBus()
  const seen = []
  const other = () => seen.push('other')
  bus.on('change', other)
  const dispose = bus.subscribe({ change: () => seen.push('change'), exit: (e) => seen.push(`exit ${e}`), ignored: null })
  bus.emit('change')
  bus.emit('exit', 3)
  dispose()
  dispose()
  bus.emit('change')
  bus.emit('exit', 4)
  assert.deepEqual(seen, ['other', 'change', 'exit 3', 'other'])
  assert.equal(bus.listenerCount('exit'), 0)
  assert.equal(bus.listenerCount('ignored'), 0)
})

test('abortable: the value without a signal; the abort reason once aborted, before or during the wait', async () => {
  assert.equal(await abortable(Promise.resolve(1)), 1)
  assert.equal(await abortable(Promise.resolve(2), new AbortController().signal), 2)
  const before = new AbortController()
  before.abort(new Error('before'))
  await assert.rejects(abortable(new Promise(() => {}), before.signal), /before/)
  const during = new AbortController()
  const waiting = abortable(new Promise(() => {}), during.signal)
  during.abort(new Error('during'))
  await assert.rejects(waiting, /during/)
})

test('mapLimited: every item once, never more than the limit at a time', async () => {
  let inFlight = 0
  let most = 0
  const done = []
  await mapLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    inFlight++
    most = Math.max(most, inFlight)
    await Promise.resolve()
    done.push(n)
    inFlight--
  })
  assert.deepEqual(done.sort(), [1, 2, 3, 4, 5, 6, 7])
  assert.equal(most, 3)
  await mapLimited([], 4, () => assert.fail('no item'))
})

test('waitPidGone: true once the check says gone, false at the deadline; async checks count', async () => {
  let checks = 0
  assert.equal(await waitPidGone(1, { timeoutMs: 1000, pollMs: 1, stillThere: async () => ++checks < 3 }), true)
  assert.equal(checks, 3)
  let t = 0
  assert.equal(await waitPidGone(1, { timeoutMs: 5, pollMs: 1, stillThere: () => true, now: () => (t += 10) }), false)
  assert.equal(await waitPidGone(0, { timeoutMs: 0 }), true, 'pid 0 is never alive')
})

test('the /proc stat parser: a command name with spaces and parentheses; the start time as the kernel writes it', async () => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i + 3))
  fields[0] = 'S'
  const text = `42 (my (odd) name) ${fields.join(' ')}\n`
  assert.deepEqual(parseStat(text), { state: 'S', ppid: 4, pgrp: 5, flags: 9, startTime: '22', ticks: 29, rssPages: 24 })
  assert.equal(parseStat('42 no parenthesis'), null)
  const fakeFs = { readFile: async (file, encoding) => { assert.equal(file, '/fake/42/stat'); assert.equal(encoding, 'latin1'); return text.replace(' S ', ' Z ') } }
  assert.equal(await readProcStat(42, { fs: fakeFs, procRoot: '/fake' }), null, 'a zombie is no process')
})
