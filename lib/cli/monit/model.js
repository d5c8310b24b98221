'use strict'

// The dashboard's view-model: the current process list, which one is selected (by id, so it
// survives processes coming and going), the scroll window of the list, and bounded per-process
// chart history and log lines built from the daemon's ~1 Hz pushes. Pure: the clock is injected.
//
// Memory stays bounded with many processes: chart history is 24 bytes a point (series.js), at
// most historySize points a process and HISTORY_BUDGET points in all; log lines at most logSize
// a process and LOG_BUDGET in all (each process keeps at least MIN_LOG_LINES).

const { Series } = require('./series')

// What the dashboard shows of a process: the daemon's pushes carry these fields only.
const MONIT_FIELDS = [
  'id', 'name', 'instance', 'pid', 'status', 'restarts', 'uptime', 'cpu', 'memory',
  'metrics.heapUsed', 'metrics.heapTotal', 'metrics.elP95', 'metrics.elP99', 'metrics.elu'
]
const HISTORY_BUDGET = 100000 // chart points, all processes together (2.4 MB)
const LOG_BUDGET = 20000 // log lines, all processes together
const MIN_LOG_LINES = 20

function pointOf (proc, at) {
  return { at, cpu: proc.cpu ?? null, heapUsed: proc.metrics?.heapUsed ?? null }
}

function pushBounded (list, item, limit) {
  list.push(item)
  if (list.length > limit) list.splice(0, list.length - limit)
}

class MonitModel {
  constructor ({ historySize = 300, logSize = 200, now = Date.now } = {}) {
    this.historySize = historySize
    this.logSize = logSize
    this.now = now
    this.processes = []
    this.history = new Map()
    this.logs = new Map()
    this.selectedId = null
    this.scrollTop = 0
    this.watched = null // ids the daemon sends in full (null: all); only those get chart points
    this.shown = [] // ids of the rows the last paint showed
    this.logVersion = 0
  }

  // The subscribe reply: the current list plus the daemon's recent history per id.
  seed ({ processes = [], history = {} } = {}) {
    this.seedHistory(history, Object.keys(history || {}).length)
    this.setProcesses(processes, { record: false })
  }

  // The daemon's recent history of some ids (a subscribe or watch reply) replaces theirs.
  seedHistory (history, count = this.processes.length) {
    const limit = this.historyLimit(count)
    for (const [id, points] of Object.entries(history || {})) {
      if (!Array.isArray(points)) continue
      const series = new Series()
      for (const p of points.slice(-limit)) series.push(p || {}, limit)
      this.history.set(Number(id), series)
    }
  }

  // The ids the daemon sends in full from now on (null: all of them).
  watch (ids) {
    this.watched = ids === null ? null : new Set(ids)
  }

  // The rows last painted and the selected process, in id order.
  shownIds () {
    const ids = new Set(this.shown)
    if (this.selectedId !== null) ids.add(this.selectedId)
    return [...ids].sort((a, b) => a - b)
  }

  historyLimit (count = this.processes.length) {
    return Math.max(1, Math.min(this.historySize, Math.floor(HISTORY_BUDGET / Math.max(1, count))))
  }

  logLimit () {
    return Math.max(Math.min(MIN_LOG_LINES, this.logSize), Math.min(this.logSize, Math.floor(LOG_BUDGET / Math.max(1, this.processes.length))))
  }

  // A push of the whole current list; records one history point per process.
  setProcesses (list, { record = true } = {}) {
    const previousIndex = this.selectedIndex()
    this.processes = (Array.isArray(list) ? list : []).slice().sort((a, b) => a.id - b.id)
    const ids = new Set(this.processes.map((p) => p.id))
    for (const map of [this.history, this.logs]) {
      for (const id of map.keys()) if (!ids.has(id)) map.delete(id)
    }
    if (record) this.record(this.processes)
    if (!ids.has(this.selectedId)) {
      const index = Math.min(Math.max(previousIndex, 0), this.processes.length - 1)
      this.selectedId = index >= 0 ? this.processes[index].id : null
    }
  }

  // A `processChanges` push (subscribe with `changes: true`): the rows that changed, the ids
  // gone; records one history point per watched row in it.
  applyChanges ({ rows = [], removed = [] } = {}) {
    const byId = new Map(this.processes.map((p) => [p.id, p]))
    for (const id of removed) byId.delete(id)
    for (const row of rows) byId.set(row.id, row)
    this.setProcesses([...byId.values()], { record: false })
    this.record(rows)
  }

  record (list) {
    const at = this.now()
    const limit = this.historyLimit()
    for (const proc of list) {
      if (this.watched !== null && !this.watched.has(proc.id)) continue // a summary row
      let series = this.history.get(proc.id)
      if (!series) this.history.set(proc.id, (series = new Series()))
      series.push(pointOf(proc, at), limit)
    }
  }

  addLog ({ id, app, instance, stream, time, line } = {}) {
    const proc = id != null
      ? { id }
      : this.processes.find((p) => p.name === app && p.instance === instance)
    if (!proc) return false
    if (!this.logs.has(proc.id)) this.logs.set(proc.id, [])
    pushBounded(this.logs.get(proc.id), { time: time ?? this.now(), stream: stream || 'out', line: String(line ?? '') }, this.logLimit())
    this.logVersion++
    return proc.id === this.selectedId
  }

  // The daemon's recent lines of a process (asked for when it is first selected) go before the
  // lines that arrived live meanwhile; a live line the reply holds too is kept once, and one
  // older than the reply's last line was already left out of it. Returns whether it is shown.
  seedLogs (id, lines) {
    if (!this.processes.some((p) => p.id === id)) return false
    const past = lines.map(({ time, stream, line }) => ({ time: time ?? null, stream: stream || 'out', line: String(line ?? '') }))
    const key = (l) => `${l.time}\n${l.stream}\n${l.line}`
    const seen = new Set(past.map(key))
    const last = past.findLast((l) => l.time !== null)?.time ?? -Infinity
    const live = (this.logs.get(id) || []).filter((l) => !seen.has(key(l)) && l.time >= last)
    const merged = past.concat(live)
    this.logs.set(id, merged.slice(Math.max(0, merged.length - this.logLimit())))
    this.logVersion++
    return id === this.selectedId
  }

  selectedIndex () {
    return this.processes.findIndex((p) => p.id === this.selectedId)
  }

  selected () {
    return this.processes[this.selectedIndex()] || null
  }

  // Moves the selection by delta rows (clamped); returns whether it changed.
  move (delta) {
    if (this.processes.length === 0) return false
    const from = this.selectedIndex()
    const to = Math.min(Math.max(from + delta, 0), this.processes.length - 1)
    this.selectedId = this.processes[to].id
    return to !== from
  }

  moveTo (index) {
    return this.move(index - this.selectedIndex())
  }

  // The rows to show in a list `height` rows tall, scrolled just enough to keep the selection visible.
  visibleRows (height) {
    const count = this.processes.length
    if (height <= 0 || count === 0) {
      this.shown = []
      return { start: 0, rows: [] }
    }
    const sel = Math.max(this.selectedIndex(), 0)
    if (sel < this.scrollTop) this.scrollTop = sel
    if (sel >= this.scrollTop + height) this.scrollTop = sel - height + 1
    this.scrollTop = Math.max(0, Math.min(this.scrollTop, count - height))
    const rows = this.processes.slice(this.scrollTop, this.scrollTop + height)
    this.shown = rows.map((p) => p.id)
    return { start: this.scrollTop, rows }
  }

  // [{ at, cpu, heapUsed }] oldest first.
  historyOf (id) {
    return this.history.get(id)?.toArray() || []
  }

  // One charted figure ('cpu', 'heapUsed') of a process over time, the newest `max` points.
  seriesOf (id, key, max) {
    return this.history.get(id)?.values(key, max) || []
  }

  logsOf (id) {
    return this.logs.get(id) || []
  }

  totals () {
    let cpu = 0
    let memory = 0
    let online = 0
    for (const p of this.processes) {
      cpu += p.cpu || 0
      memory += p.memory || 0
      if (p.status === 'online') online++
    }
    return { total: this.processes.length, online, cpu, memory }
  }
}

module.exports = { MonitModel, pointOf, MONIT_FIELDS }
