'use strict'

const net = require('node:net')
const { EventEmitter } = require('node:events')
const { LineDecoder, encode, PROTOCOL_VERSION } = require('./protocol')
const { XpmError } = require('./errors')
const { homePaths } = require('./paths')

const DEFAULT_TIMEOUT = 15000

// One connection to the daemon: requests with ids and deadlines, pushed events as 'event'.
class Client extends EventEmitter {
  constructor (socket) {
    super()
    this.socket = socket
    this.nextId = 1
    this.pending = new Map()
    this.hello = null
    this.closed = false
    const decoder = new LineDecoder({
      onMessage: (msg) => this.onMessage(msg),
      onError: (err) => this.emit('protocolError', err)
    })
    socket.on('data', (chunk) => decoder.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      this.closed = true
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer)
        reject(new XpmError('XPM_ERR_DAEMON_UNREACHABLE', 'The connection to the xpm daemon closed before it answered'))
      }
      this.pending.clear()
      this.emit('close')
    })
  }

  onMessage (msg) {
    if (msg.event !== undefined) {
      if (msg.event === 'hello') {
        this.hello = msg.data
        this.emit('hello', msg.data)
      }
      this.emit('event', msg)
      return
    }
    const waiter = this.pending.get(msg.id)
    if (!waiter) return
    this.pending.delete(msg.id)
    clearTimeout(waiter.timer)
    if (msg.error) waiter.reject(XpmError.from(msg.error))
    else waiter.resolve(msg.result)
  }

  // timeout: ms, or 0 for none (long jobs such as a reload report progress and end on their own).
  request (method, params = {}, { timeout = DEFAULT_TIMEOUT } = {}) {
    if (this.closed) return Promise.reject(new XpmError('XPM_ERR_DAEMON_UNREACHABLE', 'Not connected to the xpm daemon'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = timeout
        ? setTimeout(() => {
          this.pending.delete(id)
          reject(new XpmError('XPM_ERR_TIMEOUT', `The daemon did not answer "${method}" within ${timeout} ms`))
        }, timeout)
        : null
      this.pending.set(id, { resolve, reject, timer })
      this.socket.write(encode({ id, method, params }))
    })
  }

  close () {
    this.socket.end()
    this.socket.destroy()
  }
}

// Connects and waits for the daemon's hello. Rejects with err.code 'ECONNREFUSED'/'ENOENT' when
// nobody listens, so callers can start a daemon.
function connectOnce (socketPath, { timeout = 3000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath)
    const timer = setTimeout(() => {
      socket.destroy()
      reject(Object.assign(new Error('no hello from daemon'), { code: 'ETIMEDOUT' }))
    }, timeout)
    socket.once('error', (err) => { clearTimeout(timer); reject(err) })
    const client = new Client(socket)
    client.once('hello', (hello) => {
      clearTimeout(timer)
      socket.removeAllListeners('error')
      socket.on('error', () => {})
      if (hello.protocol !== PROTOCOL_VERSION) {
        client.close()
        reject(new XpmError('XPM_ERR_PROTOCOL_VERSION',
          `The running xpm daemon speaks protocol ${hello.protocol} (version ${hello.version}); this CLI speaks ${PROTOCOL_VERSION}. Run \`xpm update\` to replace the daemon.`))
        return
      }
      resolve(client)
    })
  })
}

// Connects to the daemon of XPM_HOME, starting one when none answers.
async function connect ({ home, autoStart = true, timeout = 10000 } = {}) {
  const paths = homePaths(home)
  try {
    return await connectOnce(paths.socket)
  } catch (err) {
    if (err instanceof XpmError || !autoStart) throw wrapUnreachable(err, paths)
  }
  const { startDaemon } = require('./daemon-spawn')
  await startDaemon(paths, { timeout })
  return connectOnce(paths.socket).catch((err) => { throw wrapUnreachable(err, paths) })
}

function wrapUnreachable (err, paths) {
  if (err instanceof XpmError) return err
  return new XpmError('XPM_ERR_DAEMON_UNREACHABLE', `No xpm daemon answers on ${paths.socket} (${err.code || err.message})`, { cause: err })
}

module.exports = { Client, connect, connectOnce }
