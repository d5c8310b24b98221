'use strict'

// The `xpm web` HTTP server: a client of the daemon like `xpm monit`. Every request passes the
// Host check of security.js first; the page's static files need nothing more (they hold no
// secret: the token reaches the page in the address's fragment, which browsers never send), every
// other request needs the bearer token, or for an event stream a one-time ticket (tickets.js);
// state-changing requests are POSTs that also pass the CSRF check and are refused in read-only
// mode. The live parts are server-sent events: /api/events (the process table, hub.js) and
// /api/logs (log-stream.js). Across hosts (`--hosts`, commands/web.js) the table is fleet-hub.js's, and
// what concerns one process names its host (`host` in the query or the action's body).

const http = require('node:http')
const { XpmError } = require('../../shared/errors')
const sec = require('./security')
const { Hub } = require('./hub')
const { loadAssets } = require('./assets')
const { streamLogs } = require('./log-stream')
const { runAction, parseAction, parseTarget } = require('./actions')
const { targetParam, readJson, eventStream } = require('./http')
const { parseWatch, MAX_PAGE_IDS } = require('./shown-ids')
const { Tickets, TTL_MS } = require('./tickets')
const REQUEST_TIMEOUT_MS = 15000

function displayHost (host) {
  if (sec.isWildcard(host)) return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

class WebServer {
  // connect: async () → a fresh daemon client (lib/cli/client.js connect with autoStart off);
  // lanes: instead, one [{ label, connect }] per host of a fleet
  constructor ({ connect, lanes = null, host = '127.0.0.1', port = 9615, token = sec.newToken(), readOnly = false, allowedHosts = [], publicUrl = null, version = require('../../../package.json').version }) {
    Object.assign(this, { connect, lanes, host, port, token, readOnly, allowedHosts, publicUrl, version })
    this.csrf = sec.csrfFor(token)
    this.tickets = new Tickets()
    this.assets = loadAssets()
    this.hub = lanes ? new (require('./fleet-hub').FleetHub)({ lanes }) : new Hub({ connect })
    this.streams = new Set() // stop functions of open log streams
    this.eventStreams = new Set() // open server-sent event answers, for their bytes waiting
    this.skippedLines = 0 // log lines not sent to a page that did not read
    this.server = http.createServer((req, res) => this.handle(req, res).catch((err) => this.fail(res, err)))
    this.server.requestTimeout = 0 // SSE answers last as long as the page
    this.server.headersTimeout = REQUEST_TIMEOUT_MS
  }

  async listen () {
    await new Promise((resolve, reject) => {
      const onError = (err) => {
        reject(new XpmError('XPM_ERR_WEB_LISTEN', `xpm web could not listen on ${this.host}:${this.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use (another `xpm web`? choose one with --port, 0 for any free port)' : err.message}`, { cause: err }))
      }
      this.server.once('error', onError)
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', onError)
        resolve()
      })
    })
    this.port = this.server.address().port
    this.legacyCookie = sec.legacyCookieName(this.port)
    return this
  }

  // the address without the token, and with it in the fragment (#token=): the page takes it from
  // there, and no request line, log, history entry or Referer ever carries it
  get address () {
    return `${this.publicUrl || `http://${displayHost(this.host)}:${this.port}`}/`
  }

  get url () {
    return `${this.address}#token=${this.token}`
  }

  async close () {
    for (const stop of this.streams) stop()
    this.hub.close()
    this.server.closeAllConnections?.()
    await new Promise((resolve) => this.server.close(() => resolve()))
  }

  headers (extra = {}) {
    return { ...sec.SECURITY_HEADERS, ...extra }
  }

  json (res, status, value) {
    const body = JSON.stringify(value)
    res.writeHead(status, this.headers({ 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }))
    res.end(body)
  }

  refuse (res, status, code, message) {
    this.json(res, status, { error: { code, message } })
  }

  fail (res, err) {
    if (res.headersSent) return res.destroy()
    const code = err?.code && /^XPM_ERR_/.test(err.code) ? err.code : 'XPM_ERR_INTERNAL'
    const status = code === 'XPM_ERR_BAD_ARGUMENT' ? 400 : code === 'XPM_ERR_APP_NOT_FOUND' ? 404 : ['XPM_ERR_DAEMON_UNREACHABLE', 'XPM_ERR_HOST_UNREACHABLE'].includes(code) ? 503 : 500
    this.refuse(res, status, code, err?.message || String(err))
  }

  async handle (req, res) {
    const url = new URL(req.url, 'http://x')
    if (!sec.hostAllowed(req.headers.host, this)) {
      return this.refuse(res, 403, 'XPM_ERR_WEB_FORBIDDEN', `Host ${JSON.stringify(req.headers.host ?? '')} is not the address xpm web is bound to`)
    }
    const path = url.pathname
    const reading = req.method === 'GET' || req.method === 'HEAD'
    const wantsPage = /\btext\/html\b/.test(req.headers.accept || '')
    if (reading && path === '/' && wantsPage) return this.page(req, res)
    if (reading && this.assets.has(path)) return this.asset(res, path)
    const stream = req.method === 'GET' && (path === '/api/events' || path === '/api/logs')
    if (!sec.bearerOk(req.headers, this.token) && !(stream && this.tickets.redeem(url.searchParams.get('ticket')))) {
      return this.refuse(res, 401, 'XPM_ERR_WEB_FORBIDDEN', 'A token is needed: open the address `xpm web` printed (it ends in #token=…), or send Authorization: Bearer <token>')
    }
    if (req.method === 'POST') return this.post(req, res, url)
    if (!reading) return this.refuse(res, 405, 'XPM_ERR_BAD_ARGUMENT', `${req.method} is not answered here`)
    if (path === '/' || path === '/pm2') return this.pm2(res, url)
    if (path === '/api/ticket') return this.json(res, 200, { ticket: this.tickets.issue(), ttl: TTL_MS })
    if (path === '/api/session') return this.json(res, 200, { csrf: this.csrf, readOnly: this.readOnly, version: this.version, hosts: this.lanes?.map((l) => l.label) ?? null })
    if (path === '/api/status') return this.json(res, 200, this.status())
    if (path === '/api/events') return this.events(req, res, url)
    if (path === '/api/logs') return this.logs(req, res, url)
    if (path === '/api/history') return this.json(res, 200, this.hub.historyOf(Number(url.searchParams.get('id')), this.hostParam(url)))
    if (path === '/api/processes') return this.processes(res)
    if (path === '/api/why') return this.why(res, url)
    return this.refuse(res, 404, 'XPM_ERR_BAD_ARGUMENT', `Nothing at ${path}`)
  }

  page (req, res) {
    const { body } = this.assets.get('/index.html')
    const extra = sec.hasCookie(req.headers.cookie, this.legacyCookie) ? { 'set-cookie': sec.expiredCookie(this.legacyCookie) } : {}
    res.writeHead(200, this.headers({ 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, ...extra }))
    res.end(body)
  }

  status () {
    let buffered = 0
    for (const res of this.eventStreams) buffered += res.writableLength
    return { subscribed: this.hub.subscribed, pages: this.hub.sinks.size, watching: this.hub.shown.watching, logStreams: this.streams.size, buffered, skippedLines: this.skippedLines, readOnly: this.readOnly }
  }

  asset (res, path) {
    const { type, body } = this.assets.get(path)
    res.writeHead(200, this.headers({ 'content-type': type, 'content-length': body.length }))
    res.end(body)
  }

  // The host a request names (`--hosts`): one of the lanes' labels; null for one daemon.
  hostParam (url) {
    return this.hostLabel(url.searchParams.get('host'))
  }

  hostLabel (value) {
    if (!this.lanes) return null
    if (this.lanes.some((l) => l.label === value)) return value
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected \`host\` to be one of ${this.lanes.map((l) => l.label).join(', ')}, got ${JSON.stringify(value)?.slice(0, 80)}`)
  }

  connectFor (label) {
    return this.lanes ? this.lanes.find((l) => l.label === label).connect : this.connect
  }

  // Across hosts: { hosts: [{ host, processes } or { host, error }] }, a host unreachable among them.
  async processes (res) {
    if (!this.lanes) return this.json(res, 200, await this.withClient((c) => c.request('list')))
    const hosts = await Promise.all(this.lanes.map((l) => this.withClient((c) => c.request('list'), l.label)
      .then((processes) => ({ host: l.label, processes }), (err) => ({ host: l.label, error: { code: err.code || 'XPM_ERR_INTERNAL', message: err.message } }))))
    this.json(res, 200, { hosts })
  }

  async withClient (fn, label = null) {
    const client = await this.connectFor(label)()
    try {
      return await fn(client)
    } finally {
      client.close()
    }
  }

  // --read-only: the environment's names only; otherwise secrets masked unless ?reveal=1
  async pm2 (res, url) {
    const { pm2Answer } = require('./pm2-json')
    const envMode = this.readOnly ? 'names' : url.searchParams.get('reveal') === '1' ? 'all' : 'secrets'
    this.json(res, 200, await this.withClient((c) => pm2Answer(c, { envMode }), this.hostParam(url)))
  }

  async why (res, url) {
    const target = targetParam(url)
    const { renderWhy, whyRow } = require('../render-why')
    const result = await this.withClient((c) => c.request('why', { target, limit: 50 }), this.hostParam(url))
    const entries = result?.entries || []
    this.json(res, 200, { entries, rows: entries.map(whyRow), text: renderWhy(entries, { target: String(target) }) })
  }

  openEvents (req, res) {
    return eventStream(req, res, (extra) => this.headers(extra), this.eventStreams)
  }

  // The page's one stream: the table (hub.js) and, with ?logs=<app>, that app's log.
  async events (req, res, url) {
    const logs = url.searchParams.has('logs') ? parseTarget(url.searchParams.get('logs')) : null
    const host = logs === null ? null : this.hostParam(url)
    const sink = this.openEvents(req, res)
    res.on('close', () => this.hub.detach(sink))
    await this.hub.attach(sink)
    if (sink.closed || res.writableEnded) return this.hub.detach(sink)
    if (logs !== null) await this.followLogs(res, this.lanes ? hostLogSink(sink, host) : sink, logs, { endOnFailure: false, host })
  }

  // A log stream alone, for scripts: ?target=<app> or ?id=<n>.
  async logs (req, res, url) {
    const target = targetParam(url)
    const host = this.hostParam(url)
    await this.followLogs(res, this.openEvents(req, res), target, { endOnFailure: true, host })
  }

  async followLogs (res, sink, target, { endOnFailure, host = null }) {
    let stop = null
    res.on('close', () => {
      if (stop) {
        stop()
        this.streams.delete(stop)
      }
    })
    try {
      stop = await streamLogs({ connect: this.connectFor(host), target, sink, onSkip: (n) => { this.skippedLines += n } })
    } catch (err) {
      sink.send('failed', { code: err.code || 'XPM_ERR_INTERNAL', message: err.message })
      if (endOnFailure) res.end()
      return
    }
    if (sink.closed) return stop()
    this.streams.add(stop)
  }

  async post (req, res, url) {
    const reason = sec.crossSiteReason(req.headers, this.token, this)
    if (reason) return this.refuse(res, 403, 'XPM_ERR_WEB_FORBIDDEN', `Refused a cross-site request: ${reason}`)
    if (url.pathname === '/api/watch') return this.watch(req, res) // changes what is sampled, nothing else: read-only too
    if (this.readOnly) return this.refuse(res, 403, 'XPM_ERR_WEB_READ_ONLY', 'xpm web runs with --read-only: restart, reload, stop and start are refused')
    if (url.pathname !== '/api/action') return this.refuse(res, 404, 'XPM_ERR_BAD_ARGUMENT', `Nothing to POST at ${url.pathname}`)
    if (!/^application\/json\b/.test(req.headers['content-type'] || '')) return this.refuse(res, 415, 'XPM_ERR_BAD_ARGUMENT', 'Expected Content-Type: application/json')
    const body = await readJson(req)
    const { action, target } = parseAction(body)
    const host = this.hostLabel(body?.host)
    // the answer streams: one JSON line per step (a reload's progress), then the outcome
    res.writeHead(200, this.headers({ 'content-type': 'application/x-ndjson; charset=utf-8' }))
    res.flushHeaders()
    const say = (text) => { if (!res.writableEnded) res.write(JSON.stringify({ type: 'step', text }) + '\n') }
    const outcome = await runAction({ connect: this.connectFor(host), action, target, say })
    res.end(JSON.stringify({ type: 'done', action, target, ...(host === null ? {} : { host }), ...outcome }) + '\n')
  }

  // POST /api/watch { sink, ids }: the rows the page with that stream has in view (hub.js).
  async watch (req, res) {
    const body = parseWatch(await readJson(req), this.lanes?.map((l) => l.label))
    if (!body) return this.refuse(res, 400, 'XPM_ERR_BAD_ARGUMENT', `Expected { sink, ids } with ids an array of up to ${MAX_PAGE_IDS} process ids${this.lanes ? ' per host ({ sink, hosts: { <host>: ids } })' : ''}`)
    // a stream that closed while the page was telling (it switched apps): nothing to watch, no error
    if (!this.hub.show(body.sink, body.hosts || body.ids) && !this.hub.issued(body.sink)) return this.refuse(res, 404, 'XPM_ERR_BAD_ARGUMENT', `No page ever had stream ${body.sink}`)
    res.writeHead(204, this.headers())
    res.end()
  }
}

// The log of a process on one host of a fleet: the host going is said in the log panel, and the
// page's stream (the table of every host) stays open.
function hostLogSink (sink, host) {
  return {
    ...sink,
    get closed () { return sink.closed },
    send: (event, data, json) => event === 'gone' ? sink.send('failed', { message: `${host}: the connection closed`, host }) : sink.send(event, data, json),
    end: () => {}
  }
}

module.exports = { WebServer, displayHost }
