'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { trackFirstListens, FIRST_LISTEN_WAIT_MS } = require('../../lib/agent/first-listens')

// A net module whose servers listen when the test says so.
function fakeNet () {
  class Server extends EventEmitter {}
  Server.prototype.listen = function () { this.listenCalls = (this.listenCalls ?? 0) + 1; return this }
  return { Server }
}

test('the agent\'s booted waits for the listens of the first turn, not for later ones, and adds no error listener', async () => {
  const net = fakeNet()
  const { settled } = trackFirstListens({ net })
  const [first, second] = [new net.Server(), new net.Server()]
  first.listen(3000)
  second.listen(3001)
  assert.equal(first.listenCalls, 1, 'the real listen is called')
  assert.equal(first.listenerCount('error'), 0)
  let done = false
  const waiting = settled().then(() => { done = true })
  new net.Server().listen(3002) // after the first turn: not waited for
  first.emit('listening')
  await new Promise(setImmediate)
  assert.equal(done, false)
  second.emit('listening')
  await waiting
})

test('with nothing listened in the first turn it is at once; a listen that never completes is waited for FIRST_LISTEN_WAIT_MS at most', async (t) => {
  await trackFirstListens({ net: fakeNet() }).settled()
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const net = fakeNet()
  const { settled } = trackFirstListens({ net })
  new net.Server().listen(3000)
  let done = false
  const waiting = settled().then(() => { done = true })
  t.mock.timers.tick(FIRST_LISTEN_WAIT_MS - 1)
  await Promise.resolve()
  assert.equal(done, false)
  t.mock.timers.tick(1)
  await waiting
})
