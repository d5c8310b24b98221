'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { parseMetricsAddress, formatAddress } = require('./address')

// The daemon's HTTP endpoint, off by default: GET /metrics (the Prometheus text format, see
// exposition.js), /livez and /readyz (daemon/runtime/probes.js), on the address XPM_METRICS names
// (read by the daemon at start) or xpm-runtime's --metrics-address. It is opened before the
// supervisor and its observers exist (xpm-runtime opens it first, so a port in use fails the container before
// any app starts) and attached to them once they do; until then /metrics and /readyz answer 503.
//
// The daemon's loop is sacred: a scrape reads no app's file itself. It asks the sampler for the
// figures older than 2 s (metrics.fresh, like `list`, but without the attention lease: a
// scraper polls, nobody is watching) and renders the latest in-memory samples.
const PATHS = 'GET /metrics, /livez or /readyz'

// Bounds on the endpoint's connections: an orchestrator's probe must be answered however many
// idle or slow clients hold connections (64 idle ones used to make every probe wait for Node's
// 30 s sweep). A connection is closed when it has not sent its headers within HEADERS_MS or its
// whole request within REQUEST_MS (checked every CHECK_MS), or when nothing moves on it either
// way for IDLE_MS (a connection that never sends a byte, a keep-alive one between requests).
// IDLE_MS stays below HEADERS_MS: measured on Node 20, a socket idle timeout longer than
// headersTimeout never fires on a connection that has not sent a byte. Past MAX_CONNECTIONS open
// at once a new connection is never refused: the oldest idle one (no request being answered) is
// closed to make room. docs/metrics.md.
// A connection with a request being answered is never closed for idleness: a scrape waits for
// its sampling round up to WAIT_MS, or the scraper's own timeout when it says it
// (X-Prometheus-Scrape-Timeout-Seconds, which Prometheus sends) less a quarter of it (at most
// 1 s, left for the render and the network), never more than MAX_WAIT_MS; then it answers with
// the samples it has (a slow round used to cost the scrape a connection reset at IDLE_MS).
const LIMITS = Object.freeze({ HEADERS_MS: 5000, REQUEST_MS: 10000, KEEP_ALIVE_MS: 4000, IDLE_MS: 4000, CHECK_MS: 1000, MAX_CONNECTIONS: 256, WAIT_MS: 8000, MAX_WAIT_MS: 120000 })

async function openEndpoint ({ host, port }, limits = LIMITS) {
  const ctx = { exposition: null, probes: null, metrics: null, limits }
  // node:http only when the endpoint is on (XPM_METRICS): 0.7 MB of RSS otherwise spared.
  const server = require('node:http').createServer({ connectionsCheckingInterval: limits.CHECK_MS }, (req, res) => {
    handle(req, res, ctx).catch((err) => {
      if (!res.headersSent) reply(res, 500, `xpm: ${err.message}\n`)
      else res.destroy()
    })
  })
  server.headersTimeout = limits.HEADERS_MS
  server.requestTimeout = limits.REQUEST_MS
  server.keepAliveTimeout = limits.KEEP_ALIVE_MS
  server.timeout = limits.IDLE_MS
  const busy = evictIdle(server, limits.MAX_CONNECTIONS)
  // a listener of its own: without one, Node destroys the socket whatever it is doing
  server.on('timeout', (socket) => { if (!busy(socket)) socket.destroy() })
  await new Promise((resolve, reject) => {
    server.once('error', (err) => reject(new XpmError('XPM_ERR_METRICS_LISTEN',
      `the metrics endpoint cannot listen on ${formatAddress({ host, port })}: ${err.code || err.message}`, { cause: err, details: { host, port, code: err.code } })))
    server.listen({ host, port, exclusive: true }, resolve)
  })
  server.on('error', () => {})
  const bound = server.address()
  const address = { host, port: bound.port }
  return {
    address,
    url: `http://${formatAddress(address)}`,
    server,
    attach ({ supervisor, metrics = null, version, otel = null }) {
      const { createExposition } = require('./exposition')
      const { createProbes } = require('../runtime/probes')
      ctx.exposition = createExposition({ supervisor, metrics, version, otel })
      ctx.probes = createProbes({ supervisor })
      ctx.metrics = metrics
    },
    markStarted () { ctx.probes?.markStarted() },
    close () {
      ctx.exposition?.close()
      server.close()
      server.closeAllConnections?.()
    }
  }
}

async function handle (req, res, ctx) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD')
    return reply(res, 405, `xpm: ${PATHS}\n`)
  }
  const path = req.url.split('?')[0]
  if (path === '/livez') return reply(res, 200, 'ok\n')
  if (path === '/readyz') {
    if (!ctx.probes) return reply(res, 503, 'not ready: the daemon is starting\n')
    const { ok, body } = ctx.probes.ready()
    return reply(res, ok ? 200 : 503, body)
  }
  if (path === '/metrics') {
    if (!ctx.exposition) return reply(res, 503, 'xpm: the daemon is starting\n')
    if (ctx.metrics) await withDeadline(ctx.metrics.fresh(null, { lease: false }), scrapeWaitMs(req, ctx.limits))
    const text = await ctx.exposition.render()
    return reply(res, 200, text, ctx.exposition.contentType)
  }
  return reply(res, 404, `xpm: no ${path} here; ${PATHS}\n`)
}

// How long a scrape may wait for its sampling round (LIMITS above).
function scrapeWaitMs (req, limits) {
  const seconds = Number(req.headers['x-prometheus-scrape-timeout-seconds'])
  if (!(seconds > 0)) return limits.WAIT_MS
  const ms = seconds * 1000
  return Math.min(limits.MAX_WAIT_MS, ms - Math.min(1000, ms / 4))
}

// Resolves when `promise` settles or `ms` have passed, whichever comes first; never rejects (the
// scrape then renders the samples there are).
function withDeadline (promise, ms) {
  let timer
  const late = new Promise((resolve) => { timer = setTimeout(resolve, ms) })
  return Promise.race([promise.catch(noop), late]).finally(() => clearTimeout(timer))
}
const noop = () => {}

// Open connections in the order they came (a Set keeps it), each with the number of requests it
// is answering; over `max`, a new connection closes the oldest idle one (or, when every one is
// busy, the oldest: its request is already late, the probe is not). → busy(socket)
function evictIdle (server, max) {
  const open = new Map() // socket → requests in flight
  server.on('connection', (socket) => {
    open.set(socket, 0)
    socket.once('close', () => open.delete(socket))
    if (open.size <= max) return
    let victim = null
    for (const [s, busy] of open) {
      if (s === socket) continue
      if (!busy) { victim = s; break }
      victim ??= s
    }
    victim?.destroy()
  })
  server.on('request', (req, res) => {
    const socket = req.socket
    if (open.has(socket)) open.set(socket, open.get(socket) + 1)
    res.once('close', () => { if (open.has(socket)) open.set(socket, Math.max(0, open.get(socket) - 1)) })
  })
  return (socket) => (open.get(socket) ?? 0) > 0
}

function reply (res, status, body, type = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' })
  res.end(res.req.method === 'HEAD' ? undefined : body)
}

// The daemon's own endpoint from XPM_METRICS (its environment at start). A bad value or a port
// in use costs the endpoint, said in daemon.log, never the daemon and its apps.
async function openFromEnv (value, logger) {
  let where
  try {
    where = parseMetricsAddress(value, { from: 'XPM_METRICS' })
    if (!where) return null
    const endpoint = await openEndpoint(where)
    logger?.info({ event: 'metrics-endpoint', url: endpoint.url }, `metrics and probes on ${endpoint.url}/metrics, /livez, /readyz`)
    return endpoint
  } catch (err) {
    logger?.error({ event: 'metrics-endpoint-failed', err: err.message, code: err.code }, `no metrics endpoint: ${err.message}`)
    return null
  }
}

module.exports = { openEndpoint, openFromEnv, parseMetricsAddress, LIMITS }
