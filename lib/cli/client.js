'use strict'

const net = require('node:net')
const { EventEmitter } = require('node:events')
const { LineDecoder, encode, fitsIn, PROTOCOL_VERSION, MAX_REQUEST_BYTES, MAX_REPLY_BYTES } = require('../shared/protocol')
const { XpmError } = require('../shared/errors')
const { homePaths } = require('../shared/paths')

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
    // Replies may be large (up to MAX_REPLY_BYTES, see lib/shared/protocol.js). A longer line cannot be
    // matched to its request: every pending request fails at once instead of waiting for its
    // deadline, and the connection, now out of step, is closed.
    const decoder = new LineDecoder({
      maxLineBytes: MAX_REPLY_BYTES,
      onMessage: (msg) => this.onMessage(msg),
      onError: (err, { tooLong = false } = {}) => {
        this.emit('protocolError', err)
        if (tooLong) this.failAll(new XpmError('XPM_ERR_PROTOCOL', `The daemon sent a line longer than ${MAX_REPLY_BYTES} bytes; the connection was closed`))
      }
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

  failAll (err) {
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer)
      reject(err)
    }
    this.pending.clear()
    this.socket.destroy()
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
    else {
      this.emit('reply', waiter.method) // which method answered (the CLI counts those that change something)
      waiter.resolve(msg.result)
    }
  }

  // timeout: ms, or 0 for none (long jobs such as a reload report progress and end on their own).
  request (method, params = {}, { timeout = DEFAULT_TIMEOUT } = {}) {
    if (this.closed) return Promise.reject(new XpmError('XPM_ERR_DAEMON_UNREACHABLE', 'Not connected to the xpm daemon'))
    const id = this.nextId++
    const line = encode({ id, method, params })
    if (!fitsIn(line, MAX_REQUEST_BYTES)) {
      return Promise.reject(new XpmError('XPM_ERR_PROTOCOL',
        `The request "${method}" is ${(Buffer.byteLength(line) / 1048576).toFixed(1)} MiB, more than the ${MAX_REQUEST_BYTES / 1048576} MiB the daemon reads in one request`))
    }
    return new Promise((resolve, reject) => {
      const timer = timeout
        ? setTimeout(() => {
          this.pending.delete(id)
          reject(new XpmError('XPM_ERR_TIMEOUT', `The daemon did not answer "${method}" within ${timeout} ms`))
        }, timeout)
        : null
      this.pending.set(id, { resolve, reject, timer, method })
      this.socket.write(line)
    })
  }

  close () {
    this.socket.end()
    this.socket.destroy()
  }
}

const HELLO_MS = 3000 // how long a daemon has to say hello on a connection
const SLOW_HELLO_MS = 30000 // the second try, once the lock said a daemon holds the home

// Connects and waits for the daemon's hello. Rejects with err.code 'ECONNREFUSED'/'ENOENT' when
// nobody listens, so callers can start a daemon; with a hello failure (helloFailure below) at the
// hello timeout, and at once when the connection closes before the hello (the daemon died or is
// exiting).
function connectOnce (socketPath, { timeout = 3000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath)
    const timer = setTimeout(() => {
      socket.destroy()
      reject(helloFailure('XPM_ERR_TIMEOUT', `no hello from the daemon within ${timeout} ms`, 'ETIMEDOUT'))
    }, timeout)
    socket.once('error', (err) => { clearTimeout(timer); reject(err) })
    const client = new Client(socket)
    const closed = () => {
      clearTimeout(timer)
      reject(helloFailure('XPM_ERR_DAEMON_UNREACHABLE', 'the daemon closed the connection before its hello', 'ECONNRESET'))
    }
    client.once('close', closed)
    client.once('hello', (hello) => {
      client.off('close', closed)
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

// Connects to the daemon of XPM_HOME, starting one when none answers. Nobody answering on
// daemon.sock is not yet "no daemon": the lock (lib/shared/daemon-lock.js) says whether one holds this
// XPM_HOME — starting (wait for its socket), running (it has just listened on a removed socket
// again) or shutting down (wait for it to exit, then start a new one). stderr: where that wait is said;
// env: the environment a daemon started here inherits.
async function connect ({ home, autoStart = true, timeout = 10000, shutdownWait = 120000, stderr = process.stderr, env = process.env } = {}) {
  const paths = homePaths(home, env)
  require('../shared/safe-fs').ensureSafeHome(paths.home, { create: false })
  // The lock and spawn modules (node:crypto, node:child_process) load only when the first connect
  // fails: a CLI talking to a running daemon is spared their load time.
  const deadline = Date.now() + shutdownWait
  let told = false
  let waited = false
  let last
  for (;;) {
    try {
      return await connectOnce(paths.socket, { timeout: waited ? SLOW_HELLO_MS : HELLO_MS })
    } catch (err) {
      if (err instanceof XpmError && !err.details?.reason) throw err
      last = err
    }
    const holder = await require('../shared/daemon-lock').probeLock(paths.home)
    if (!holder) break
    if (holder.state === 'closing') {
      if (!told) stderr.write(`[xpm] the daemon${holder.pid ? ` (pid ${holder.pid})` : ''} is shutting down; waiting for it to exit\n`)
      told = true
      await waitGone(holder, deadline, paths)
      continue
    }
    holder.close()
    if (waited) {
      throw new XpmError('XPM_ERR_DAEMON_UNREACHABLE',
        `The xpm daemon${holder.pid ? ` (pid ${holder.pid})` : ''} holds ${paths.home} but does not answer on ${paths.socket} (${reasonOf(last)}); see ${paths.daemonLog}`)
    }
    // 'running': it has checked its socket (and listened again) before answering the lock;
    // 'starting': its socket comes once it has read its state. A live daemon that did not say
    // hello in time is slow, not gone (a machine saturated by its processes): wait longer.
    if (reasonOf(last) === 'ETIMEDOUT') stderr.write(`[xpm] the daemon${holder.pid ? ` (pid ${holder.pid})` : ''} is slow to answer; waiting up to ${SLOW_HELLO_MS / 1000} s\n`)
    waited = true
    await require('./daemon-spawn').waitForSocket(paths, { timeout }).catch((err) => { last = err })
  }
  if (!autoStart) throw wrapUnreachable(last, paths)
  await require('./daemon-spawn').startDaemon(paths, { timeout, env })
  return connectOnce(paths.socket).catch((err) => { throw wrapUnreachable(err, paths) })
}

// Resolves when the daemon behind a lock connection exits (the kernel closes the connection).
async function waitGone (holder, deadline, paths) {
  let timer
  const late = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new XpmError('XPM_ERR_TIMEOUT', `the daemon (pid ${holder.pid ?? '?'}) is still shutting down; see ${paths.daemonLog}`)), Math.max(0, deadline - Date.now()))
  })
  try {
    await Promise.race([holder.gone, late])
  } finally {
    clearTimeout(timer)
    holder.close()
  }
}

function wrapUnreachable (err, paths) {
  if (err instanceof XpmError && !err.details?.reason) return err
  return new XpmError('XPM_ERR_DAEMON_UNREACHABLE', `No xpm daemon answers on ${paths.socket} (${reasonOf(err) || err.message})`, { cause: err })
}

// A connection that got no hello: the catalogue's code, and the socket-level reason
// (ETIMEDOUT, ECONNRESET) the retry loop above and the messages go by.
function helloFailure (code, message, reason) {
  return new XpmError(code, message, { details: { reason } })
}

function reasonOf (err) {
  return err?.details?.reason ?? err?.code ?? 'no answer'
}

module.exports = { Client, connect, connectOnce, waitGone }
