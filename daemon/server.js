'use strict'

const net = require('node:net')
const { LineDecoder, encode, PROTOCOL_VERSION } = require('../lib/protocol')
const { XpmError } = require('../lib/errors')

const PUSH_HIGH_WATER = 1024 * 1024

// The socket server: framing, dispatch and back-pressure. Whatever a client sends, the daemon
// answers with an error or closes that one connection; it never throws out of here.
function createServer ({ methods, version, logger, hello = null }) {
  const connections = new Set()

  const server = net.createServer((socket) => {
    const conn = new Connection(socket, logger)
    connections.add(conn)
    socket.on('close', () => {
      connections.delete(conn)
      conn.closed = true
      for (const dispose of conn.disposers) dispose()
    })
    socket.on('error', () => socket.destroy())
    conn.push('hello', { protocol: PROTOCOL_VERSION, version, pid: process.pid, ...hello?.() })
    const decoder = new LineDecoder({
      onMessage: (msg) => handle(conn, msg),
      onError: (err) => {
        conn.write({ id: null, error: err })
        if (/longer than/.test(err.message)) socket.destroy()
      }
    })
    socket.on('data', (chunk) => decoder.push(chunk))
  })

  async function handle (conn, msg) {
    const { id = null, method, params = {} } = msg
    const fn = typeof method === 'string' && Object.hasOwn(methods, method) ? methods[method] : null
    if (!fn) {
      conn.write({ id, error: { code: 'XPM_ERR_UNKNOWN_METHOD', message: `Unknown method ${JSON.stringify(method)}` } })
      return
    }
    try {
      const result = await fn(params && typeof params === 'object' ? params : {}, conn)
      conn.write({ id, result: result ?? null })
    } catch (err) {
      if (!(err instanceof XpmError)) logger?.error({ event: 'error', method, err }, 'request failed')
      const wire = err instanceof XpmError ? err.toJSON() : { code: 'XPM_ERR_INTERNAL', message: err.message }
      conn.write({ id, error: wire })
    }
  }

  return { server, connections }
}

class Connection {
  constructor (socket, logger) {
    this.socket = socket
    this.logger = logger
    this.closed = false
    this.disposers = []
    this.dropped = 0
  }

  write (message) {
    if (this.closed || this.socket.destroyed) return false
    return this.socket.write(encode(message))
  }

  // Pushed events are droppable: a subscriber that does not read is never allowed to grow the
  // daemon's memory. Skipped events are counted and reported once the socket drains.
  push (event, data) {
    if (this.closed || this.socket.destroyed) return false
    if (this.socket.writableLength > PUSH_HIGH_WATER) {
      this.dropped++
      return false
    }
    if (this.dropped) {
      this.socket.write(encode({ event: 'dropped', data: { count: this.dropped } }))
      this.dropped = 0
    }
    return this.socket.write(encode({ event, data }))
  }

  onClose (dispose) {
    if (this.closed) dispose()
    else this.disposers.push(dispose)
  }
}

module.exports = { createServer }
