'use strict'

// Servers that stand in front of, or beside, `xpm web` in its tests: a forwarding proxy (plain
// HTTP, or TLS with the self-signed localhost certificate of test/fixtures/tls) that records
// every request line and header it passes on, and a "neighbour" server on another loopback port
// that records what the browser sends it. All on 127.0.0.1, free ports, closed by the test.

const fs = require('node:fs')
const http = require('node:http')
const https = require('node:https')
const path = require('node:path')

const TLS = path.join(__dirname, '..', 'fixtures', 'tls')

function listen (server, t, port = 0) {
  t.after(() => {
    server.closeAllConnections?.()
    return new Promise((resolve) => server.close(() => resolve()))
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server.address().port)))
}

// Forwards every request to 127.0.0.1:target, streaming both ways (server-sent events pass).
// tls: serve HTTPS; forwardedProto: add X-Forwarded-Proto; upstreamHost: send Host as the
// upstream's address (nginx's default) instead of the browser's; port: a fixed one. Resolves
// { port, seen, drop() }: seen holds { line, headers } of each request, as the dashboard receives
// it; drop() cuts every open connection.
async function startProxy (t, target, { tls = false, forwardedProto = null, upstreamHost = false, port = 0 } = {}) {
  const seen = []
  const handler = (req, res) => {
    const headers = { ...req.headers }
    if (forwardedProto) headers['x-forwarded-proto'] = forwardedProto
    if (upstreamHost) headers.host = `127.0.0.1:${target}`
    seen.push({ line: `${req.method} ${req.url} HTTP/${req.httpVersion}`, headers })
    const up = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers)
      answer.pipe(res)
    })
    up.on('error', () => res.destroy())
    res.on('close', () => up.destroy())
    req.pipe(up)
  }
  const server = tls
    ? https.createServer({ key: fs.readFileSync(path.join(TLS, 'localhost-key.pem')), cert: fs.readFileSync(path.join(TLS, 'localhost-cert.pem')) }, handler)
    : http.createServer(handler)
  const sockets = new Set()
  server.on(tls ? 'secureConnection' : 'connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  // cuts every open connection, as a proxy restarting does
  const drop = () => { for (const socket of sockets) socket.destroy() }
  return { port: await listen(server, t, port), seen, drop }
}

// Another local server the user visits: it answers a page and records { url, headers } of all
// the browser sent it.
async function startNeighbour (t) {
  const seen = []
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url, headers: { ...req.headers } })
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<html><head><link rel="icon" href="/favicon.ico"></head><body>another local server</body></html>')
  })
  return { port: await listen(server, t), seen }
}

module.exports = { startProxy, startNeighbour }
