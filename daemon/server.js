'use strict'

const net = require('node:net')
const { LineDecoder, encode, fitsIn, PROTOCOL_VERSION, MAX_REQUEST_BYTES, MAX_REPLY_BYTES } = require('../lib/shared/protocol')
const { XpmError } = require('../lib/shared/errors')

const MiB = 1024 * 1024
// Pushed events are skipped (and counted) while more than this waits to be written.
const PUSH_HIGH_WATER = MiB
// No further request of a connection is read while more than this of its output waits to be
// written, or while this many of its requests are being answered: the socket is paused until
// the client reads (and the kernel's buffers push back on the client's writes).
const REPLY_HIGH_WATER = MiB
const MAX_IN_FLIGHT = 32
// Replies of requests already taken are never dropped, so output can pass REPLY_HIGH_WATER by
// what those replies weigh; past this hard cap the client is not reading at all and the
// connection is closed, so one client can never hold more of the daemon's memory than this.
const MAX_PENDING_OUTPUT = MAX_REPLY_BYTES + 32 * MiB

// The socket server: framing, dispatch and back-pressure. Whatever a client sends, the daemon
// answers with an error or closes that one connection; it never throws out of here.
function createServer ({ methods, version, logger, hello = null, limits = {} }) {
  const connections = new Set()
  const opts = {
    maxRequestBytes: MAX_REQUEST_BYTES,
    maxReplyBytes: MAX_REPLY_BYTES,
    replyHighWater: REPLY_HIGH_WATER,
    pushHighWater: PUSH_HIGH_WATER,
    maxInFlight: MAX_IN_FLIGHT,
    maxPendingOutput: MAX_PENDING_OUTPUT,
    ...limits
  }

  const server = net.createServer((socket) => {
    const conn = new Connection(socket, { logger, opts, handle: (msg) => handle(conn, msg) })
    connections.add(conn)
    socket.on('close', () => {
      connections.delete(conn)
      conn.closed = true
      conn.queue = []
      for (const dispose of conn.disposers) dispose()
    })
    socket.on('error', () => socket.destroy())
    conn.push('hello', { protocol: PROTOCOL_VERSION, version, pid: process.pid, ...hello?.() })
    const decoder = new LineDecoder({
      maxLineBytes: opts.maxRequestBytes,
      onMessage: (msg) => conn.enqueue({ msg }),
      onError: (error, { tooLong = false } = {}) => {
        if (!tooLong) return conn.enqueue({ error })
        // the stream is out of step: say why, then close once that is written
        conn.reading = false
        conn.write({ id: null, error })
        socket.end()
        socket.once('finish', () => socket.destroy())
      }
    })
    socket.on('data', (chunk) => {
      if (!conn.reading) return
      decoder.push(chunk)
      conn.pump()
    })
    socket.on('drain', () => conn.pump())
  })

  async function handle (conn, msg) {
    const { id = null, method } = msg
    const fn = typeof method === 'string' && Object.hasOwn(methods, method) ? methods[method] : null
    if (!fn) {
      conn.reply(id, method, { error: { code: 'XPM_ERR_UNKNOWN_METHOD', message: `Unknown method ${JSON.stringify(method)?.slice(0, 100)}` } })
      return
    }
    const params = msg.params ?? {}
    if (typeof params !== 'object' || Array.isArray(params)) {
      conn.reply(id, method, { error: { code: 'XPM_ERR_BAD_ARGUMENT', message: `Expected \`params\` of "${method}" to be an object` } })
      return
    }
    try {
      const result = await fn(params, conn)
      conn.reply(id, method, { result: result ?? null })
    } catch (err) {
      if (!(err instanceof XpmError)) logger?.error({ event: 'error', method, err }, 'request failed')
      const wire = err instanceof XpmError ? err.toJSON() : { code: 'XPM_ERR_INTERNAL', message: err.message }
      conn.reply(id, method, { error: wire })
    }
  }

  return { server, connections }
}

class Connection {
  constructor (socket, { logger = null, opts, handle }) {
    this.socket = socket
    this.logger = logger
    this.opts = opts
    this.handle = handle
    this.closed = false
    this.reading = true
    this.paused = false
    this.disposers = []
    this.dropped = 0
    this.queue = [] // requests read but not yet taken (at most what one read of the socket held)
    this.head = 0
    this.inFlight = 0
  }

  get gone () {
    return this.closed || this.socket.destroyed
  }

  enqueue (item) {
    if (!this.gone) this.queue.push(item)
  }

  // Takes queued requests while the client keeps up: fewer than maxInFlight being answered and
  // no more than replyHighWater waiting to be written. Otherwise the socket is paused; 'drain'
  // and each finished request call pump() again.
  pump () {
    while (this.head < this.queue.length && !this.gone && this.open()) {
      const item = this.queue[this.head]
      this.queue[this.head++] = undefined
      if (item.error) {
        this.write({ id: null, error: item.error })
        continue
      }
      this.inFlight++
      this.handle(item.msg)
        .catch((err) => this.logger?.error({ event: 'error', err }, 'answering a request failed'))
        .finally(() => {
          this.inFlight--
          this.pump()
        })
    }
    if (this.head >= this.queue.length) {
      this.queue = []
      this.head = 0
    }
    const blocked = this.queue.length > 0 || !this.open()
    if (blocked && !this.paused && !this.gone) {
      this.paused = true
      this.socket.pause()
    } else if (!blocked && this.paused) {
      this.paused = false
      this.socket.resume()
    }
  }

  open () {
    return this.inFlight < this.opts.maxInFlight && this.socket.writableLength <= this.opts.replyHighWater
  }

  // A reply is never dropped while the connection lives; one over maxReplyBytes is replaced by
  // an XPM_ERR_REPLY_TOO_LARGE error with the same id.
  reply (id, method, body) {
    if (this.gone) return false
    let line
    try {
      line = encode({ id, ...body })
    } catch (err) {
      // JSON.stringify fails past V8's longest string, well over the limit
      line = null
      this.logger?.warn({ event: 'reply-too-large', method, err }, `reply to ${method} could not be encoded`)
    }
    if (line === null || !fitsIn(line, this.opts.maxReplyBytes)) {
      const size = line === null ? 'too large to encode' : `${(Buffer.byteLength(line) / MiB).toFixed(1)} MiB`
      const limit = `${Math.round(this.opts.maxReplyBytes / MiB)} MiB`
      line = encode({
        id,
        error: {
          code: 'XPM_ERR_REPLY_TOO_LARGE',
          message: `The reply to "${method}" is ${size}, more than the ${limit} a reply may be; ask for less (fewer log lines, one app or process)`,
          details: { method, limit: this.opts.maxReplyBytes }
        }
      })
    }
    return this.writeLine(line)
  }

  write (message) {
    if (this.gone) return false
    return this.writeLine(encode(message))
  }

  writeLine (line) {
    if (this.socket.writableLength + line.length > this.opts.maxPendingOutput) {
      this.logger?.warn({ event: 'slow-client', pending: this.socket.writableLength }, 'a client reads none of its replies; its connection is closed')
      this.socket.destroy()
      return false
    }
    return this.socket.write(line)
  }

  // Pushed events are droppable: a subscriber that does not read is never allowed to grow the
  // daemon's memory. Skipped events are counted and reported once the socket drains. An event
  // larger than a reply may be is skipped too (the client could not read it). Returns false when
  // the event was skipped.
  push (event, data) {
    if (this.gone) return false
    if (this.socket.writableLength > this.opts.pushHighWater) {
      this.dropped++
      return false
    }
    const line = encode({ event, data })
    if (!fitsIn(line, this.opts.maxReplyBytes)) {
      this.dropped++
      return false
    }
    if (this.dropped) {
      this.socket.write(encode({ event: 'dropped', data: { count: this.dropped } }))
      this.dropped = 0
    }
    this.writeLine(line)
    return !this.socket.destroyed // false: dropped (the subscriber gets a `dropped` event)
  }

  onClose (dispose) {
    if (this.closed) dispose()
    else this.disposers.push(dispose)
  }
}

module.exports = { createServer, Connection, REPLY_HIGH_WATER, MAX_IN_FLIGHT, MAX_PENDING_OUTPUT }
