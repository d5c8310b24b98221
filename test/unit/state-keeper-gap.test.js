'use strict'

// The least time between two state.json writes that no change of intent asked for
// (daemon/persistence/state-keeper.js, docs/persistence.md "What is saved, and when"): a crash
// loop's new pids and exits share one write a gap; an intent, and a fork of an app whose
// processes no tag sweep ends, are written at once. An injected clock; writes are counted.
const test = require('node:test')
const assert = require('node:assert/strict')
const { StateKeeper } = require('../../daemon/persistence/state-keeper')
const { fakeClock, settle } = require('../helpers/fake-clock')

function setup ({ gapMs = 1000, debounceMs = 100 } = {}) {
  const fake = fakeClock()
  const handlers = {}
  const supervisor = { apps: new Map(), allInstances: () => [], subscribe: (h) => { Object.assign(handlers, h); return () => {} } }
  const writes = []
  const keeper = new StateKeeper({
    file: '/h/state.json',
    supervisor,
    debounceMs,
    gapMs,
    timers: fake.timers,
    now: fake.now,
    startTimes: { of: async () => null, prune () {} },
    write: async () => { writes.push(fake.now()) }
  })
  const forked = (spec = {}) => handlers.forked({ instance: { spec } })
  return { fake, handlers, keeper, writes, forked }
}

test('a crash loop: the forks and exits within a gap share one write, at most gapMs after the last', async () => {
  const { fake, handlers, keeper, writes, forked } = setup()
  await keeper.start()
  assert.deepEqual(writes, [0], 'the state is saved at start')
  forked()
  await fake.advance(300)
  handlers.change() // its exit
  await fake.advance(100)
  forked() // its restart
  await fake.advance(500)
  assert.deepEqual(writes, [0], 'nothing before the gap is over')
  await fake.advance(100)
  assert.deepEqual(writes, [0, 1000], 'one write, the gap after the last')
  await fake.advance(1500)
  forked() // a fork after a quiet gap: written at once
  await settle()
  assert.deepEqual(writes, [0, 1000, 2500])
  handlers.change()
  await fake.advance(999)
  assert.deepEqual(writes, [0, 1000, 2500], 'a change waits for the gap too')
  await fake.advance(1)
  assert.deepEqual(writes, [0, 1000, 2500, 3500])
  await fake.advance(5000)
  assert.equal(writes.length, 4, 'no write without a change')
})

test('a change after a quiet gap keeps its short debounce', async () => {
  const { fake, handlers, keeper, writes } = setup()
  await keeper.start()
  await fake.advance(5000)
  handlers.change()
  await fake.advance(99)
  assert.deepEqual(writes, [0])
  await fake.advance(1)
  assert.deepEqual(writes, [0, 5100])
})

test('a change of intent is written at once, gap or not, and covers the pid waiting for the gap', async () => {
  const { fake, handlers, keeper, writes, forked } = setup()
  await keeper.start()
  await fake.advance(200)
  forked()
  await fake.advance(100)
  handlers.intent()
  await settle()
  assert.deepEqual(writes, [0, 300])
  assert.equal(fake.pending, 0, 'the fork\'s timer is gone: the intent\'s write holds its pid')
  await fake.advance(3000)
  assert.equal(writes.length, 2)
})

test('a fork of an app with treekill: false is written at once (no tag sweep would find it)', async () => {
  const { fake, keeper, writes, forked } = setup()
  await keeper.start()
  await fake.advance(10)
  forked({ treekill: false })
  await settle()
  assert.deepEqual(writes, [0, 10])
})

test('a wall clock set back does not hold a write back longer than the gap', async () => {
  const { fake, keeper, writes, forked } = setup()
  await keeper.start()
  keeper.lastWriteAt = 3600e3 // the last write as the clock read before it was set back an hour
  forked()
  assert.deepEqual(fake.delays(), [1000])
  await fake.advance(1000)
  assert.equal(writes.length, 2)
})

test('a shutdown drops the pending write: the frozen state is written instead', async () => {
  const { fake, handlers, keeper, writes, forked } = setup()
  await keeper.start()
  forked()
  handlers.change()
  assert.equal(fake.pending, 1)
  await keeper.freeze()
  assert.equal(fake.pending, 0)
  await fake.advance(2000)
  assert.deepEqual(writes, [0, 0])
})
