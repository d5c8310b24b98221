'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { fakeClock } = require('../helpers/fake-clock')
const { streamLogs, MAX_LINES_PER_BATCH, BATCH_MS, MAX_BUFFERED } = require('../../lib/cli/web/log-stream')

function setup () {
  const clock = fakeClock()
  const client = new EventEmitter()
  client.requests = []
  client.closed = false
  client.request = async (method, params) => {
    client.requests.push({ method, params })
    return { lines: [{ id: 0, app: 'api', stream: 'err', line: 'boom' }] }
  }
  client.close = () => { client.closed = true }
  const sent = []
  const sink = { send: (event, data) => sent.push({ event, data }), end: () => { sink.ended = true } }
  return { clock, client, sent, sink, connect: async () => client }
}

const log = (n, stream = 'out') => ({ event: 'log', data: { id: 0, app: 'api', instance: 0, stream, time: n, line: `line ${n}` } })

test('the history first, then live lines in batches, at most MAX_LINES_PER_BATCH a batch, the rest counted', async () => {
  const { clock, client, sent, sink, connect } = setup()
  const stop = await streamLogs({ connect, target: 'api', sink, timers: clock.timers })
  assert.deepEqual(client.requests[0], { method: 'logs', params: { target: 'api', lines: 100, follow: true } })
  assert.deepEqual(sent[0], { event: 'lines', data: { lines: [{ id: 0, app: 'api', instance: null, stream: 'err', time: null, line: 'boom' }], dropped: 0, history: true } })
  for (let n = 0; n < MAX_LINES_PER_BATCH + 30; n++) client.emit('event', log(n, n % 2 ? 'err' : 'out'))
  assert.equal(sent.length, 1) // nothing before the batch is due
  clock.advanceSync(BATCH_MS)
  assert.equal(sent.length, 2)
  assert.equal(sent[1].data.lines.length, MAX_LINES_PER_BATCH)
  assert.equal(sent[1].data.dropped, 30)
  assert.equal(sent[1].data.lines[1].stream, 'err')
  stop()
  assert.equal(client.closed, true)
  client.emit('event', log(999))
  clock.advanceSync(BATCH_MS)
  assert.equal(sent.length, 2) // nothing after stop
})

test('a long line is cut; the daemon going away ends the stream so the page connects again', async () => {
  const { clock, client, sent, sink, connect } = setup()
  await streamLogs({ connect, target: 3, sink, timers: clock.timers })
  client.emit('event', { event: 'log', data: { line: 'x'.repeat(5000) } })
  clock.advanceSync(BATCH_MS)
  assert.equal(sent[1].data.lines[0].line.length, 2001)
  client.emit('close')
  assert.equal(sent.at(-1).event, 'gone')
  assert.equal(sink.ended, true)
})

test('a page that does not read is sent nothing: its lines are counted, and the count goes first once it caught up', async () => {
  const { clock, client, sent, sink, connect } = setup()
  let waiting = 0
  const drains = []
  sink.buffered = () => waiting
  sink.onDrain = (fn) => drains.push(fn)
  const counted = []
  await streamLogs({ connect, target: 'api', sink, timers: clock.timers, onSkip: (n) => counted.push(n) })
  waiting = MAX_BUFFERED + 1
  for (let n = 0; n < 10; n++) client.emit('event', log(n))
  clock.advanceSync(BATCH_MS)
  for (let n = 10; n < 500; n++) client.emit('event', log(n))
  clock.advanceSync(BATCH_MS * 10)
  assert.equal(sent.length, 1) // the history only
  assert.equal(drains.length, 1)
  assert.equal(counted.reduce((a, b) => a + b, 0), 500)
  waiting = 0
  drains[0]()
  assert.deepEqual(sent[1], { event: 'lines', data: { lines: [], dropped: 0, skipped: 500 } })
  client.emit('event', log(500))
  clock.advanceSync(BATCH_MS)
  assert.deepEqual(sent[2].data.lines.map((l) => l.line), ['line 500'])
  assert.equal(sent[2].data.skipped, undefined)
})
