'use strict'

// Probes answered from inside the worker, so a probe is about this process and no other.
//
// In cluster mode the primary (the daemon) accepts every connection to a shared port and hands
// it to a worker in turn: an HTTP GET to the port — even one made from inside a worker — reaches
// whichever worker is next. So the daemon asks the agent of the worker it means, over IPC:
// { cmd: 'NODE_XPM_PROBE', id, kind, path, port, timeout } (an internal message: the app's
// process.on('message') never sees it, and listening for it keeps nothing alive). The agent
// answers { 'xpm:agent': 'probe', id, ok, status, detail }:
//
//  - http: a GET is written into a connection injected straight into this process's own
//    http.Server — `server.emit('connection', duplex)`, which Node documents for any Duplex
//    stream. The request goes through Node's HTTP parser, the app's middleware and its route,
//    like any request, only without a network hop; 2xx and 3xx pass. With `port`, the server
//    listening on that port; without, the first HTTP server that listens.
//  - https: the same into the process's own https.Server, as the connection its TLS layer would
//    hand over once the handshake is done (`server.emit('secureConnection', duplex)`): the
//    certificate and the handshake are not part of the probe, the app's request handling is.
//  - tcp: whether a server of this process listens on that port (in cluster mode, a connect to
//    the port only proves the primary accepts; the answer itself proves the worker's loop runs).
//
// The servers are known because listen() is tracked from preload on (servers.js).
const CMD = 'NODE_XPM_PROBE'
const MAX_HEAD_BYTES = 16 * 1024
const { servers, trackServers } = require('./servers')

function portOf (server) {
  try {
    const address = server.address()
    return address && typeof address === 'object' ? address.port : null
  } catch {
    return null
  }
}

function listeningServers (port) {
  return [...servers].filter((s) => s.listening && (port === null || port === undefined || portOf(s) === port))
}

// https.Server is a tls.Server, not an http.Server: each probe kind looks for its own.
function findHttpServer (port, secure = false) {
  const Server = secure ? require('node:https').Server : require('node:http').Server
  const candidates = listeningServers(port).filter((s) => s instanceof Server)
  return candidates.find((s) => s.listenerCount('request') > 0) ?? candidates[0] ?? null
}

// Two Duplex ends: what one writes, the other reads.
function duplexPair () {
  const { Duplex } = require('node:stream')
  const ends = []
  const end = (other) => new Duplex({
    read () {},
    write (chunk, encoding, callback) {
      ends[other].push(chunk)
      callback()
    },
    final (callback) {
      ends[other].push(null)
      callback()
    }
  })
  ends.push(end(1), end(0))
  return ends
}

// The server's end looks enough like a socket for the app's code: addresses, and the socket
// methods servers and frameworks call (no-ops here).
function asSocket (duplex, port, secure = false) {
  Object.assign(duplex, {
    remoteAddress: '127.0.0.1',
    remoteFamily: 'IPv4',
    remotePort: 0,
    localAddress: '127.0.0.1',
    localPort: port ?? 0,
    encrypted: secure,
    ...(secure ? { authorized: false, alpnProtocol: false, getPeerCertificate: () => ({}), getCipher: () => null, getProtocol: () => null } : {}),
    setTimeout () { return this },
    setNoDelay () { return this },
    setKeepAlive () { return this },
    ref () { return this },
    unref () { return this },
    address: () => ({ address: '127.0.0.1', family: 'IPv4', port: port ?? 0 })
  })
  return duplex
}

// GET `path` through the server's own request handling. Resolves { ok, status, detail }.
function httpProbe ({ path, port = null, timeout = 1000, secure = false }) {
  const server = findHttpServer(port, secure)
  if (!server) {
    const what = secure ? 'HTTPS' : 'HTTP'
    const other = findHttpServer(port, !secure) ? ` (an ${secure ? 'HTTP' : 'HTTPS'} server listens: use an ${secure ? 'http' : 'https'} probe)` : ''
    return Promise.resolve({ ok: false, status: 0, detail: `${port ? `no ${what} server listening on port ${port} in this process` : `no ${what} server listening in this process`}${other}` })
  }
  return new Promise((resolve) => {
    const [client, socket] = duplexPair()
    let head = ''
    let settled = false
    const finish = (result) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      client.destroy()
      socket.destroy()
      resolve(result)
    }
    const timer = setTimeout(() => finish({ ok: false, status: 0, detail: `no answer within ${timeout} ms` }), timeout)
    timer.unref()
    client.on('data', (chunk) => {
      head += chunk.toString('latin1')
      const m = /^HTTP\/\d\.\d (\d{3})/.exec(head)
      if (m) {
        const status = Number(m[1])
        if (status >= 100 && status < 200) return // 1xx: wait for the final status
        return finish({ ok: status >= 200 && status < 400, status, detail: String(status) })
      }
      if (head.length > MAX_HEAD_BYTES || (head.length >= 12 && !head.startsWith('HTTP/'))) finish({ ok: false, status: 0, detail: 'not an HTTP answer' })
    })
    client.on('end', () => finish({ ok: false, status: 0, detail: 'connection closed without an answer' }))
    client.on('error', () => {})
    socket.on('error', () => {})
    const portShown = port ?? portOf(server)
    try {
      server.emit(secure ? 'secureConnection' : 'connection', asSocket(socket, portShown, secure))
      client.write(`GET ${path} HTTP/1.1\r\nHost: localhost${portShown ? `:${portShown}` : ''}\r\nUser-Agent: xpm-probe\r\nConnection: close\r\n\r\n`)
    } catch (err) {
      finish({ ok: false, status: 0, detail: `the server threw: ${err.message}` })
    }
  })
}

function tcpProbe ({ port }) {
  const listening = listeningServers(port).length > 0
  return Promise.resolve({ ok: listening, status: 0, detail: listening ? 'listening' : `nothing listens on port ${port} in this process` })
}

// The answer goes out with its own callback (never through the metrics reporter's one-in-flight
// slot, which would drop it): probes are one per request of the daemon, so they are bounded.
function reply (message) {
  if (typeof process.send !== 'function' || process.connected !== true) return
  try {
    process.send(message, () => {})
  } catch {}
}

// The internalMessage listener (installed at preload). True when the message was a probe.
function onProbeMessage (msg) {
  if (msg === null || typeof msg !== 'object' || msg.cmd !== CMD) return false
  const id = msg.id
  const run = msg.kind === 'http' || msg.kind === 'https' ? httpProbe : msg.kind === 'tcp' ? tcpProbe : null
  const answer = run
    ? run({ path: typeof msg.path === 'string' ? msg.path : '/', port: Number.isInteger(msg.port) ? msg.port : null, timeout: Number(msg.timeout) > 0 ? Number(msg.timeout) : 1000, secure: msg.kind === 'https' })
    : Promise.resolve({ ok: false, status: 0, detail: `unknown probe kind ${msg.kind}` })
  answer.then((result) => reply({ 'xpm:agent': 'probe', id, ...result }), (err) => reply({ 'xpm:agent': 'probe', id, ok: false, status: 0, detail: err.message }))
  return true
}

module.exports = { trackServers, onProbeMessage, httpProbe, tcpProbe, duplexPair, CMD, _servers: servers }
