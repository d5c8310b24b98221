'use strict'

// daemon/server.js and lib/cli/client.js on a real Unix socket, with a fake method table: replies
// have back-pressure and bounds, large replies arrive, over-long lines fail at once.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createServer } = require('../../daemon/server')
const { Client, connectOnce } = require('../../lib/cli/client')
const { encode, LineDecoder, MAX_REPLY_BYTES, MAX_REQUEST_BYTES } = require('../../lib/shared/protocol')
const { XpmError } = require('../../lib/shared/errors')
const { waitFor } = require('../helpers/wait')
const { tempDir } = require('../helpers/tmp')

const KiB = 1024
const MiB = 1024 * KiB

async function serve (t, methods, limits = {}) {
  const dir = tempDir('xpm-server-')
  const sock = path.join(dir, 's.sock')
  const calls = { count: 0 }
  const counted = Object.fromEntries(Object.entries(methods).map(([name, fn]) => [name, (...a) => { calls.count++; return fn(...a) }]))
  const { server, connections } = createServer({ methods: { ping: () => ({ pong: true }), ...counted }, version: 'test', limits })
  await new Promise((resolve) => server.listen(sock, resolve))
  t.after(() => {
    for (const c of connections) c.socket.destroy()
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return { sock, connections, calls }
}

// A raw connection that collects replies by id once reading is turned on.
function rawClient (sock, { read = true } = {}) {
  const socket = net.createConnection(sock)
  const replies = new Map()
  const decoder = new LineDecoder({ maxLineBytes: MAX_REPLY_BYTES, onMessage: (m) => { if (m.id !== undefined) replies.set(m.id, m) }, onError: () => {} })
  socket.on('data', (chunk) => decoder.push(chunk))
  socket.on('error', () => {})
  if (!read) socket.pause()
  return { socket, replies, closed: new Promise((resolve) => socket.on('close', resolve)) }
}

test('a reply over the reply limit becomes XPM_ERR_REPLY_TOO_LARGE with the same id, at once', async (t) => {
  const { sock } = await serve(t, { big: (p) => 'x'.repeat(p.size) }, { maxReplyBytes: MiB })
  const client = await connectOnce(sock)
  t.after(() => client.close())
  assert.equal((await client.request('big', { size: 512 * KiB })).length, 512 * KiB)
  await assert.rejects(client.request('big', { size: 2 * MiB }), { code: 'XPM_ERR_REPLY_TOO_LARGE', message: /^The reply to "big" is 2\.0 MiB, more than the 1 MiB a reply may be/ })
  assert.equal((await client.request('ping')).pong, true)
})

test('large replies (20 MiB, far over the old 1 MiB line limit) arrive whole', async (t) => {
  const line = 'y'.repeat(100 * KiB)
  const { sock } = await serve(t, { lines: () => ({ lines: Array.from({ length: 200 }, () => line) }) })
  const client = await connectOnce(sock)
  t.after(() => client.close())
  const { lines } = await client.request('lines', {}, { timeout: 10000 })
  assert.equal(lines.length, 200)
  assert.ok(lines.every((l) => l === line))
})

test('a client that never reads: the server stops taking its requests, buffers a bounded amount, loses no reply', async (t) => {
  const payload = 'z'.repeat(64 * KiB)
  const { sock, connections, calls } = await serve(t, { list: () => payload })
  const slow = rawClient(sock, { read: false })
  t.after(() => slow.socket.destroy())
  await new Promise((resolve) => slow.socket.on('connect', resolve))
  const sent = 5000
  let wire = ''
  for (let id = 1; id <= sent; id++) wire += encode({ id, method: 'list' })
  slow.socket.write(wire)
  const conn = await waitFor(() => [...connections].find((c) => c.paused), { message: 'the server to pause the connection' })
  // nothing more is taken while the client reads nothing
  const taken = calls.count
  assert.ok(taken < sent, `${taken} of ${sent} requests taken`)
  assert.ok(conn.socket.writableLength <= MiB + 32 * 70 * KiB, `${conn.socket.writableLength} bytes waiting`)
  assert.equal(calls.count, taken)
  // another client is served meanwhile
  const other = await connectOnce(sock)
  t.after(() => other.close())
  assert.equal((await other.request('ping')).pong, true)
  // once the client reads, every reply arrives
  slow.socket.resume()
  await waitFor(() => slow.replies.size === sent, { timeout: 20000, message: 'every reply' })
  assert.ok([...slow.replies.values()].every((r) => r.result === payload))
})

test('past the hard cap of pending output the connection is closed, and only that one', async (t) => {
  const payload = 'w'.repeat(200 * KiB)
  const { sock, connections } = await serve(t, { later: () => new Promise((resolve) => setTimeout(() => resolve(payload), 50)) }, { maxPendingOutput: 2 * MiB })
  const slow = rawClient(sock, { read: false })
  t.after(() => slow.socket.destroy())
  await new Promise((resolve) => slow.socket.on('connect', resolve))
  await waitFor(() => connections.size === 1)
  let wire = ''
  for (let id = 1; id <= 64; id++) wire += encode({ id, method: 'later' })
  slow.socket.write(wire)
  // (the paused client does not notice the close; the server's side is gone)
  await waitFor(() => connections.size === 0, { message: 'the server to close the connection' })
  const other = await connectOnce(sock)
  t.after(() => other.close())
  assert.equal((await other.request('ping')).pong, true)
})

test('params that are not an object, unknown methods, bad lines: stable codes, in order, connection kept', async (t) => {
  const { sock } = await serve(t, { echo: (p) => p })
  const c = rawClient(sock)
  t.after(() => c.socket.destroy())
  c.socket.write('{"id":1,"method":"echo","params":[1]}\n{"id":2,"method":"echo","params":"x"}\n{"id":3,"method":"echo","params":null}\n' +
    '{"id":4,"method":"constructor"}\n{"id":5,"method":"__proto__"}\nnot json\n{"id":6,"method":"echo","params":{"a":1}}\n')
  await waitFor(() => c.replies.size === 7)
  assert.equal(c.replies.get(null).error.code, 'XPM_ERR_PROTOCOL')
  assert.equal(c.replies.get(1).error.code, 'XPM_ERR_BAD_ARGUMENT')
  assert.equal(c.replies.get(2).error.code, 'XPM_ERR_BAD_ARGUMENT')
  assert.deepEqual(c.replies.get(3).result, {})
  assert.equal(c.replies.get(4).error.code, 'XPM_ERR_UNKNOWN_METHOD')
  assert.equal(c.replies.get(5).error.code, 'XPM_ERR_UNKNOWN_METHOD')
  assert.deepEqual(c.replies.get(6).result, { a: 1 })
})

test('a request line over the request limit is answered with XPM_ERR_PROTOCOL, then the connection closes', async (t) => {
  const { sock } = await serve(t, {}, { maxRequestBytes: 64 * KiB })
  const c = rawClient(sock)
  let text = ''
  c.socket.on('data', (d) => { text += d })
  c.socket.write('{"id":1,"method":"ping","params":{"pad":"' + 'p'.repeat(100 * KiB) + '"}}\n')
  await c.closed
  assert.match(text, /"id":null,"error":\{"code":"XPM_ERR_PROTOCOL","message":"Line longer than 65536 bytes"/)
})

test('the client refuses a request over the request limit at once, and fails every pending request on an over-long reply line', async (t) => {
  const { sock } = await serve(t, { hang: () => new Promise(() => {}) })
  const client = await connectOnce(sock)
  t.after(() => client.close())
  await assert.rejects(client.request('ping', { pad: 'q'.repeat(MAX_REQUEST_BYTES) }), { code: 'XPM_ERR_PROTOCOL', message: /^The request "ping" is 8\.0 MiB, more than the 8 MiB/ })
  assert.equal((await client.request('ping')).pong, true)

  // a peer that sends a line longer than any reply may be
  const dir = tempDir('xpm-client-')
  const fake = path.join(dir, 'f.sock')
  const server = net.createServer((s) => {
    s.on('error', () => {})
    s.write(encode({ event: 'hello', data: { protocol: 1, version: 'x', pid: 1 } }))
    s.once('data', () => {
      const chunk = Buffer.alloc(MiB, 0x61)
      let sent = 0
      const more = () => { while (sent <= MAX_REPLY_BYTES && s.write(chunk)) sent += chunk.length; if (sent <= MAX_REPLY_BYTES) s.once('drain', () => { sent += chunk.length; more() }) }
      more()
    })
  })
  await new Promise((resolve) => server.listen(fake, resolve))
  t.after(() => { server.close(); fs.rmSync(dir, { recursive: true, force: true }) })
  const victim = await connectOnce(fake)
  const started = Date.now()
  await assert.rejects(victim.request('show', { target: 'all' }, { timeout: 30000 }), (err) => err instanceof XpmError && err.code === 'XPM_ERR_PROTOCOL')
  assert.ok(Date.now() - started < 15000)
  assert.ok(victim instanceof Client)
})
