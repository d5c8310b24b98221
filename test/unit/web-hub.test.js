'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { fakeClock } = require('../helpers/fake-clock')
const { Hub, MAX_BUFFERED, LINGER_MS } = require('../../lib/cli/web/hub')

function fakeDaemon (processes) {
  const daemon = { connects: 0, open: 0, clients: [] }
  daemon.connect = async () => {
    daemon.connects++
    daemon.open++
    const c = new EventEmitter()
    c.requests = []
    c.request = async (method, params) => {
      c.requests.push({ method, params })
      if (method === 'watch') return { history: Object.fromEntries(params.ids.map((id) => [id, [{ at: 2, cpu: 40 + id }]])) }
      await daemon.gate
      assert.equal(method, 'subscribe')
      assert.deepEqual(params.topics, ['processes'])
      return { processes, history: { 0: [{ at: 1, cpu: 5, memory: 10, heapUsed: 3, elP99: 1 }] } }
    }
    c.changes = (data) => c.emit('event', { event: 'processChanges', data })
    c.close = () => { daemon.open-- }
    c.push = (list) => c.emit('event', { event: 'processes', data: list })
    daemon.clients.push(c)
    return c
  }
  return daemon
}

function sink (buffered = 0) {
  const s = { sent: [], waiting: buffered, drains: [] }
  s.send = (event, data) => { s.sent.push({ event, data }); return s.waiting }
  s.buffered = () => s.waiting
  s.onDrain = (fn) => s.drains.push(fn)
  s.end = () => { s.ended = true }
  return s
}

const proc = (id, over = {}) => ({ id, name: `app${id}`, status: 'online', cpu: 1, memory: 100, uptime: 5000, metrics: { heapUsed: 10, elP99: 2 }, ...over })

test('the subscription follows attention: opened by the first page, closed after the last one goes', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  assert.equal(daemon.connects, 0)
  const a = sink()
  const b = sink()
  await hub.attach(a)
  await hub.attach(b)
  assert.equal(daemon.connects, 1)
  assert.equal(a.sent[0].event, 'full')
  hub.detach(a)
  hub.detach(b)
  assert.equal(hub.subscribed, true) // a reload of the page within LINGER_MS keeps it
  await clock.advance(LINGER_MS)
  assert.equal(hub.subscribed, false)
  assert.equal(daemon.open, 0)
  await hub.attach(a)
  assert.equal(daemon.connects, 2)
})

test('frames are diffs of the rows that changed, at most about one a second', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0), proc(1)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  const page = sink()
  await hub.attach(page)
  clock.advanceSync(1000)
  daemon.clients[0].push([proc(0), proc(1, { cpu: 50 })])
  let diffs = page.sent.filter((m) => m.event === 'diff')
  assert.equal(diffs.length, 1)
  assert.deepEqual(diffs[0].data.rows.map((r) => r[0]), [1])
  // a burst of pushes inside the frame interval: one more frame, with the newest list
  daemon.clients[0].push([proc(0, { cpu: 9 }), proc(1, { cpu: 50 })])
  daemon.clients[0].push([proc(0, { cpu: 10 })])
  diffs = page.sent.filter((m) => m.event === 'diff')
  assert.equal(diffs.length, 1)
  clock.advanceSync(1000)
  diffs = page.sent.filter((m) => m.event === 'diff')
  assert.equal(diffs.length, 2)
  assert.deepEqual(diffs[1].data.removed, [1])
  assert.equal(diffs[1].data.rows[0][10], 10) // cpu column
  assert.deepEqual(hub.historyOf(0).cpu, [5, 1, 10]) // the daemon's history, then one point a frame
})

test('a page that does not read is skipped, then sent a whole frame once it has caught up', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  const slow = sink()
  await hub.attach(slow)
  slow.waiting = MAX_BUFFERED + 1
  clock.advanceSync(1000)
  daemon.clients[0].push([proc(0, { cpu: 2 })])
  clock.advanceSync(1000)
  daemon.clients[0].push([proc(0, { cpu: 3 })])
  assert.deepEqual(slow.sent.map((m) => m.event), ['full'])
  slow.waiting = 0
  slow.drains.shift()()
  assert.deepEqual(slow.sent.map((m) => m.event), ['full', 'full'])
  assert.equal(slow.sent[1].data.rows[0][10], 3)
})

test('the daemon going away ends every page\'s stream (the page connects again) and drops the subscription', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  const page = sink()
  await hub.attach(page)
  daemon.clients[0].emit('close')
  assert.equal(page.ended, true)
  assert.equal(page.sent.at(-1).event, 'gone')
  assert.equal(hub.subscribed, false)
  assert.equal(hub.sinks.size, 0)
})

test('a page gone before the subscription was answered does not leave it open', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  let answer
  daemon.gate = new Promise((resolve) => { answer = resolve })
  const page = sink()
  const attaching = hub.attach(page)
  hub.detach(page)
  await clock.advance(LINGER_MS) // the linger passes while the subscribe request is in flight
  answer()
  await attaching
  await clock.advance(LINGER_MS)
  assert.equal(hub.subscribed, false)
  assert.equal(daemon.open, 0)
})

test('issue 27: the daemon watches the union of the rows the pages show; their history comes with the watch reply', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0), proc(1), proc(2), proc(3)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  const a = sink()
  const b = sink()
  await hub.attach(a)
  await hub.attach(b)
  const client = daemon.clients[0]
  assert.deepEqual(client.requests[0].params.ids, [], 'nothing in full until a page says what it shows')
  assert.equal(client.requests[0].params.changes, true)
  assert.equal(a.sent[0].data.sink, a.id, 'the full frame names the page\'s stream')
  assert.equal(hub.show(a.id, [0, 1]), true)
  assert.equal(hub.show(b.id, [1, 3]), true)
  assert.equal(hub.show(9999, [2]), false, 'no such page')
  await clock.advance(0)
  assert.deepEqual(client.requests.filter((r) => r.method === 'watch').at(-1).params.ids, [0, 1, 3])
  assert.deepEqual(hub.historyOf(3).cpu, [43], 'the history of an id newly watched')
  hub.detach(b)
  await clock.advance(0)
  assert.deepEqual(client.requests.filter((r) => r.method === 'watch').at(-1).params.ids, [0, 1], 'a page gone: its rows no longer watched')
  // issue 34: a page that switched apps may still name the stream it closed: known, not an error
  assert.equal(hub.show(b.id, [2]), false)
  assert.equal(hub.issued(b.id), true)
  assert.equal(hub.issued(9999), false)
  assert.equal(hub.issued('1'), false)
})

test('issue 27: processChanges pushes are merged into one frame; rows not in them stay, removed ids go', async () => {
  const clock = fakeClock()
  const daemon = fakeDaemon([proc(0), proc(1), proc(2)])
  const hub = new Hub({ connect: daemon.connect, now: clock.now, timers: clock.timers })
  const page = sink()
  await hub.attach(page)
  clock.advanceSync(1000)
  daemon.clients[0].changes({ rows: [proc(1, { cpu: 50 })], removed: [] })
  let diffs = page.sent.filter((m) => m.event === 'diff')
  assert.deepEqual(diffs[0].data.rows.map((r) => r[0]), [1])
  assert.deepEqual(diffs[0].data.removed, [])
  assert.equal(diffs[0].data.count, 3, 'the rows not in the push are still there')
  daemon.clients[0].changes({ rows: [proc(0, { status: 'stopped' })], removed: [] })
  daemon.clients[0].changes({ rows: [], removed: [2] })
  clock.advanceSync(1000)
  diffs = page.sent.filter((m) => m.event === 'diff')
  assert.equal(diffs.length, 2)
  assert.deepEqual(diffs[1].data.rows.map((r) => [r[0], r[6]]), [[0, 'stopped']])
  assert.deepEqual(diffs[1].data.removed, [2])
  assert.equal(diffs[1].data.count, 2)
})
