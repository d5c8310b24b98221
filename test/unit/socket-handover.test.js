'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter, once } = require('node:events')
const { SocketHandover } = require('../../daemon/launchers/socket-handover')

const handover = new SocketHandover()
const joinSlot = (handle, name, index) => handover.joinSlot(handle, name, index)
const { askForSocket, shareSockets, listenAddress } = require('../../lib/agent/socket-handover')

// A worker's IPC end as the daemon sees it: what was sent, with its handle.
function fakeChild () {
  const child = new EventEmitter()
  child.connected = true
  child.sent = []
  child.send = (message, handle, cb) => {
    if (typeof handle === 'function') [cb, handle] = [handle, null]
    child.sent.push({ message, handle })
    child.emit('sent', { message, handle })
    queueMicrotask(() => cb?.(null))
    return true
  }
  return child
}

class FakeHandle extends EventEmitter {
  constructor () {
    super()
    this.child = fakeChild()
    this.exited = false
  }

  get hasIpc () { return true }
}

let app = 0
const slot = () => `app${++app}`

test('a replacement asking for its port gets the socket of the worker it replaces; the daemon closes its own copy', async () => {
  const name = slot()
  const [old, spare] = [new FakeHandle(), new FakeHandle()]
  joinSlot(old, name, 0)
  joinSlot(spare, name, 0)
  const socket = { closed: false, close () { this.closed = true } }
  const shareAsked = once(old.child, 'sent')
  spare.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_ASK', id: 7, port: 3000 })
  const [{ message: ask }] = await shareAsked
  assert.equal(ask.cmd, 'NODE_XPM_SOCKET_SHARE')
  assert.equal(ask.port, 3000)
  const answered = once(spare.child, 'sent')
  old.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_SHARED', id: ask.id }, socket)
  const [answer] = await answered
  assert.deepEqual(answer.message, { cmd: 'NODE_XPM_SOCKET', id: 7 })
  assert.equal(answer.handle, socket)
  await new Promise(setImmediate)
  assert.equal(socket.closed, true)
})

test('a worker alone in its slot (first start, another instance number, the old one exited) gets no socket', async () => {
  const name = slot()
  const [first, other] = [new FakeHandle(), new FakeHandle()]
  joinSlot(first, name, 0)
  joinSlot(other, name, 1)
  const answered = once(first.child, 'sent')
  first.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_ASK', id: 1, port: 3000 })
  const [answer] = await answered
  assert.deepEqual(answer, { message: { cmd: 'NODE_XPM_SOCKET', id: 1 }, handle: null })
  assert.deepEqual(other.child.sent, [])
  const next = new FakeHandle()
  joinSlot(next, name, 1)
  other.exited = true
  other.emit('exit')
  const answeredAgain = once(next.child, 'sent')
  next.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_ASK', id: 2, port: 3000 })
  const [again] = await answeredAgain
  assert.equal(again.handle, null)
})

test('an old worker that does not answer in time: the replacement gets no socket and opens its own', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const name = slot()
  const [old, spare] = [new FakeHandle(), new FakeHandle()]
  joinSlot(old, name, 0)
  joinSlot(spare, name, 0)
  const shareAsked = once(old.child, 'sent')
  spare.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_ASK', id: 3, port: 3000 })
  await shareAsked
  const answered = once(spare.child, 'sent')
  t.mock.timers.tick(4000)
  const [answer] = await answered
  assert.equal(answer.handle, null)
})

test('the worker side: asks, takes the handle of its answer; the old worker hands each server once', async () => {
  const proc = new EventEmitter()
  proc.connected = true
  proc.send = (message, handle, cb) => {
    if (typeof handle === 'function') [cb, handle] = [handle, null]
    proc.emit('out', { message, handle })
    cb?.(null)
  }
  const out = once(proc, 'out')
  const asked = askForSocket(3000, null, { proc })
  const [{ message }] = await out
  assert.deepEqual(message, { cmd: 'NODE_XPM_SOCKET_ASK', id: message.id, port: 3000, address: null })
  const handle = { close () {} }
  proc.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET', id: message.id }, handle)
  assert.equal(await asked, handle)

  const server = (port) => ({ listening: true, _handle: { port }, address: () => ({ port }) })
  const [a, b] = [server(3000), server(3000)]
  shareSockets(new Map([[a, null], [b, null], [server(4000), null]]), { proc })
  const shares = []
  proc.on('out', (out) => shares.push(out))
  for (let id = 1; id <= 3; id++) proc.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_SHARE', id, port: 3000, address: null })
  assert.deepEqual(shares.map((s) => s.handle), [a._handle, b._handle, null])
})

test('a socket is handed over for its own address and port only: a new listen address gets none (a reload that changes HOST)', async () => {
  const proc = new EventEmitter()
  proc.send = (message, handle, cb) => {
    if (typeof handle === 'function') [cb, handle] = [handle, null]
    proc.emit('out', { message, handle })
    cb?.(null)
  }
  const server = (port) => ({ listening: true, _handle: { port }, address: () => ({ port }) })
  const [any, one, six] = [server(3000), server(3000), server(3000)]
  shareSockets(new Map([[any, null], [one, '127.0.0.1'], [six, '::1']]), { proc })
  const shares = []
  proc.on('out', (out) => shares.push(out.handle))
  const ask = (id, address) => proc.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_SHARE', id, port: 3000, address })
  ask(1, '127.0.0.2')
  ask(2, '127.0.0.1')
  ask(3, '::1')
  ask(4, null)
  assert.deepEqual(shares, [null, one._handle, six._handle, any._handle])
})

test('listenAddress: no host is null, an IP is spelled one way, a name is looked up as listen() does, an unknown name stays as given', async () => {
  const lookup = async (host) => {
    if (host === 'db.local') return { address: '0:0:0:0:0:0:0:1', family: 6 }
    throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })
  }
  for (const host of [undefined, null, '']) assert.equal(await listenAddress(host, { lookup }), null)
  assert.equal(await listenAddress('127.0.0.2', { lookup }), '127.0.0.2')
  assert.equal(await listenAddress('0:0::1', { lookup }), '::1')
  assert.equal(await listenAddress('db.local', { lookup }), '::1')
  assert.equal(await listenAddress('nowhere.invalid', { lookup }), 'nowhere.invalid')
})

test('the daemon passes the address asked for on to the worker being replaced', async () => {
  const name = slot()
  const [old, spare] = [new FakeHandle(), new FakeHandle()]
  joinSlot(old, name, 0)
  joinSlot(spare, name, 0)
  const shareAsked = once(old.child, 'sent')
  spare.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_ASK', id: 9, port: 3000, address: '127.0.0.2' })
  const [{ message }] = await shareAsked
  assert.equal(message.address, '127.0.0.2')
  const answered = once(spare.child, 'sent')
  old.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_SHARED', id: message.id })
  assert.equal((await answered)[0].handle, null)
})

test('a socket handed over after its request timed out is closed, by the daemon and by the worker', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const name = slot()
  const [old, spare] = [new FakeHandle(), new FakeHandle()]
  joinSlot(old, name, 0)
  joinSlot(spare, name, 0)
  const shareAsked = once(old.child, 'sent')
  spare.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_ASK', id: 4, port: 3000 })
  const [{ message: ask }] = await shareAsked
  const answered = once(spare.child, 'sent')
  t.mock.timers.tick(4000)
  await answered
  const late = { closed: false, close () { this.closed = true } }
  old.child.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET_SHARED', id: ask.id }, late)
  assert.equal(late.closed, true, 'the daemon keeps no socket of the group')

  const proc = new EventEmitter()
  proc.connected = true
  proc.send = (message, cb) => { proc.emit('out', message); cb?.(null) }
  const out = once(proc, 'out')
  const asked = askForSocket(3000, null, { proc })
  const [message] = await out
  t.mock.timers.tick(5000)
  assert.equal(await asked, null)
  const lateToWorker = { closed: false, close () { this.closed = true } }
  proc.emit('internalMessage', { cmd: 'NODE_XPM_SOCKET', id: message.id }, lateToWorker)
  assert.equal(lateToWorker.closed, true, 'the worker keeps no socket it does not listen on')
})
