'use strict'

// The dashboard's one subscription to the daemon, shared by every open page, held only while a
// page is open: the first page opens it, the last one to go closes it (the daemon then samples
// at its idle rate again). Each push of the process list becomes one compact frame, sent to every
// page as a diff of the rows that changed; a page that does not read (more than MAX_BUFFERED
// bytes waiting) is skipped and gets a whole frame once it has caught up. The server keeps the
// recent chart points of every process (seeded from the daemon's history) for a page that selects one.
// Cost follows what is shown: each page says which rows it has in view (POST /api/watch), only
// those are watched in full (shown-ids.js); the daemon sends the others as summary rows, and
// only when they change (subscribe with `changes: true`, `processChanges` pushes).

const { EventEmitter } = require('node:events')
const { PointRing } = require('../../shared/point-ring')
const { ShownIds } = require('./shown-ids')

// What the page shows of a process: the daemon sends these fields only.
const WEB_FIELDS = [
  'id', 'name', 'namespace', 'instance', 'mode', 'pid', 'status', 'ready', 'restarts', 'uptime',
  'cpu', 'memory', 'metrics.heapUsed', 'metrics.heapTotal', 'metrics.elP99'
]
// A row on the wire: an array in this order (about a third of the bytes of an object).
const COLUMNS = ['id', 'name', 'namespace', 'instance', 'mode', 'pid', 'status', 'ready', 'restarts', 'uptime', 'cpu', 'memory', 'heapUsed', 'heapTotal', 'elP99']
const POINT_KEYS = ['at', 'cpu', 'memory', 'heapUsed', 'elP99']
const HISTORY_POINTS = 300 // per process: five minutes at the daemon's 1 Hz
const HISTORY_BUDGET = 200000 // points over all processes (8 MB at 40 bytes a point)
const MIN_FRAME_MS = 900 // at most about one frame a second, whatever the daemon pushes
const MAX_BUFFERED = 512 * 1024 // bytes waiting for a page before its frames are skipped
const LINGER_MS = 3000 // a page reloading does not close and reopen the subscription

function rowOf (p) {
  const m = p.metrics || {}
  return [p.id, p.name, p.namespace ?? null, p.instance ?? null, p.mode ?? null, p.pid ?? null, p.status ?? null,
    typeof p.ready === 'boolean' ? p.ready : null, p.restarts ?? 0,
    // uptime to the second: a row whose figures did not move is left out of the diff
    typeof p.uptime === 'number' ? Math.floor(p.uptime / 1000) * 1000 : null,
    p.cpu ?? null, p.memory ?? null, m.heapUsed ?? null, m.heapTotal ?? null, m.elP99 ?? null]
}

function sameRow (a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

class Hub extends EventEmitter {
  // connect: async () → a client of the daemon (lib/cli/client.js), or a fake one for screenshots.
  // historyBudget: chart points over all its processes (fleet-hub.js shares one among its hosts)
  constructor ({ connect, now = Date.now, timers = { setTimeout, clearTimeout }, historyBudget = HISTORY_BUDGET }) {
    super()
    this.historyBudget = historyBudget
    this.connect = connect
    this.now = now
    this.timers = timers
    this.sinks = new Set()
    this.client = null
    this.opening = null
    this.rows = new Map() // id → row array (what pages were last sent)
    this.history = new Map() // id → PointRing
    this.lastFrameAt = -Infinity
    this.pending = null
    this.frameTimer = null
    this.lingerTimer = null
    this.at = 0
    this.sinkSeq = 0
    this.shown = new ShownIds({ onHistory: (history) => this.seedHistory(history) })
  }

  // sink: { send(event, data, json?) → bytes waiting, buffered() → bytes waiting, onDrain(fn), end() }
  async attach (sink) {
    sink.id = ++this.sinkSeq // the page names it in POST /api/watch
    this.sinks.add(sink)
    this.timers.clearTimeout(this.lingerTimer)
    this.lingerTimer = null
    try {
      await this.open()
    } catch (err) {
      // the page's EventSource connects again in a few seconds: the daemon may be back by then
      this.sinks.delete(sink)
      sink.send('gone', { message: err.message })
      sink.end()
      return
    }
    if (this.sinks.has(sink)) this.sendFull(sink)
  }

  detach (sink) {
    this.sinks.delete(sink)
    this.shown.drop(sink)
    this.closeWhenUnwatched()
  }

  closeWhenUnwatched () {
    if (this.sinks.size > 0 || this.lingerTimer) return
    this.lingerTimer = this.timers.setTimeout(() => {
      this.lingerTimer = null
      if (this.sinks.size === 0) this.close()
    }, LINGER_MS)
    this.lingerTimer.unref?.()
  }

  get subscribed () {
    return this.client !== null
  }

  open () {
    if (this.client) return Promise.resolve()
    if (!this.opening) {
      this.opening = (async () => {
        const client = await this.connect()
        client.on('event', ({ event, data }) => {
          if (event === 'processChanges') this.onChanges(data)
          else if (event === 'processes') this.onProcesses(data) // an older daemon: whole lists
        })
        client.on('close', () => {
          if (this.client !== client) return
          this.reset()
          const sinks = [...this.sinks]
          this.sinks.clear()
          for (const sink of sinks) {
            sink.send('gone', { message: 'the xpm daemon went away' })
            sink.end()
          }
        })
        const ids = this.shown.ids()
        const reply = await client.request('subscribe', { topics: ['processes'], fields: WEB_FIELDS, ids, changes: true })
        this.client = client
        this.seed(reply || {})
        this.shown.use(client, ids)
        // every page went while the daemon was answering: do not keep a subscription nobody reads
        this.closeWhenUnwatched()
      })().finally(() => { this.opening = null })
    }
    return this.opening
  }

  close () {
    const client = this.client
    this.reset()
    client?.close()
  }

  reset () {
    this.client = null
    this.shown.stop()
    this.rows.clear()
    this.history.clear()
    this.timers.clearTimeout(this.frameTimer)
    this.frameTimer = null
    this.pending = null
  }

  historyLimit () {
    return Math.max(10, Math.min(HISTORY_POINTS, Math.floor(this.historyBudget / Math.max(1, this.rows.size))))
  }

  seed ({ processes = [], history = {} }) {
    this.at = this.now()
    this.rows = new Map(processes.map((p) => [p.id, rowOf(p)]))
    this.seedHistory(history)
  }

  // The daemon's recent points of some ids (a subscribe or watch reply) replace theirs.
  seedHistory (history) {
    const limit = this.historyLimit()
    for (const [id, points] of Object.entries(history || {})) {
      if (!Array.isArray(points)) continue
      const ring = new PointRing(POINT_KEYS)
      for (const p of points.slice(-limit)) ring.push(p || {}, limit)
      this.history.set(Number(id), ring)
    }
  }

  // Which rows a page has in view (POST /api/watch); false: no such page.
  show (sinkId, ids) {
    const sink = [...this.sinks].find((s) => s.id === sinkId)
    if (!sink) return false
    this.shown.set(sink, ids)
    return true
  }

  // Whether a stream of that id was ever opened (it may have closed since).
  issued (sinkId) {
    return Number.isSafeInteger(sinkId) && sinkId >= 1 && sinkId <= this.sinkSeq
  }

  // A whole list (a daemon that pushes `processes`): rows missing from it are gone.
  onProcesses (list) {
    this.pending = { whole: true, list: Array.isArray(list) ? list : [] }
    this.frameSoon()
  }

  // A `processChanges` push, merged with any other waiting for the next frame.
  onChanges ({ rows = [], removed = [] } = {}) {
    if (this.pending?.whole) this.flush()
    const pending = this.pending || (this.pending = { whole: false, rows: new Map(), removed: new Set() })
    for (const id of removed) {
      pending.rows.delete(id)
      pending.removed.add(id)
    }
    for (const p of rows) {
      pending.removed.delete(p.id)
      pending.rows.set(p.id, p)
    }
    this.frameSoon()
  }

  frameSoon () {
    const wait = this.lastFrameAt + MIN_FRAME_MS - this.now()
    if (wait <= 0) this.flush()
    else if (!this.frameTimer) this.frameTimer = this.timers.setTimeout(() => this.flush(), wait)
  }

  flush () {
    this.timers.clearTimeout(this.frameTimer)
    this.frameTimer = null
    const pending = this.pending
    this.pending = null
    if (!pending) return
    const list = pending.whole ? pending.list : [...pending.rows.values()]
    this.lastFrameAt = this.now()
    const at = this.at = this.now()
    const limit = this.historyLimit()
    const changed = []
    const seen = new Set()
    for (const p of list) {
      const row = rowOf(p)
      seen.add(row[0])
      const old = this.rows.get(row[0])
      if (!old || !sameRow(old, row)) changed.push(row)
      this.rows.set(row[0], row)
      let ring = this.history.get(row[0])
      if (!ring) this.history.set(row[0], (ring = new PointRing(POINT_KEYS)))
      ring.push({ at, cpu: p.cpu ?? null, memory: p.memory ?? null, heapUsed: p.metrics?.heapUsed ?? null, elP99: p.metrics?.elP99 ?? null }, limit)
    }
    const removed = []
    for (const id of (pending.whole ? this.rows.keys() : pending.removed)) {
      if (!seen.has(id) && this.rows.has(id)) {
        removed.push(id)
        this.rows.delete(id)
        this.history.delete(id)
      }
    }
    const frame = { at, rows: changed, removed, count: this.rows.size }
    const json = JSON.stringify(frame) // once for every page
    for (const sink of this.sinks) {
      if (sink.stale) continue
      if (sink.buffered() > MAX_BUFFERED) {
        sink.stale = true
        sink.onDrain(() => { sink.stale = false; if (this.sinks.has(sink)) this.sendFull(sink) })
        continue
      }
      sink.send('diff', frame, json)
    }
    this.emit('frame', frame)
  }

  sendFull (sink) {
    sink.send('full', { at: this.at, sink: sink.id, columns: COLUMNS, rows: [...this.rows.values()] })
  }

  // The chart points of one process, oldest first, as columns: { at: [], cpu: [], ... }.
  historyOf (id) {
    const out = {}
    for (const key of POINT_KEYS) out[key] = []
    const ring = this.history.get(id)
    if (!ring) return out
    for (const p of ring.toArray()) for (const key of POINT_KEYS) out[key].push(p[key] ?? null)
    return out
  }
}

module.exports = { Hub, WEB_FIELDS, COLUMNS, POINT_KEYS, rowOf, MAX_BUFFERED, LINGER_MS, HISTORY_BUDGET }
