'use strict'

// The dashboard's view-model: the current process list, which one is selected (by id, so it
// survives processes coming and going), the scroll window of the list, and bounded per-process
// history and log lines built from the daemon's ~1 Hz pushes. Pure: the clock is injected.

const POINT_KEYS = ['cpu', 'memory', 'heapUsed', 'heapTotal', 'elP95', 'elP99', 'elu']

function pointOf (proc, at) {
  const m = proc.metrics || {}
  return {
    at,
    cpu: proc.cpu ?? null,
    memory: proc.memory ?? null,
    heapUsed: m.heapUsed ?? null,
    heapTotal: m.heapTotal ?? null,
    elP95: m.elP95 ?? null,
    elP99: m.elP99 ?? null,
    elu: m.elu ?? null
  }
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
    this.logVersion = 0
  }

  // The subscribe reply: the current list plus the daemon's recent history per id.
  seed ({ processes = [], history = {} } = {}) {
    for (const [id, points] of Object.entries(history || {})) {
      if (!Array.isArray(points)) continue
      this.history.set(Number(id), points.slice(-this.historySize).map((p) => {
        const point = { at: p.at ?? null }
        for (const key of POINT_KEYS) point[key] = p[key] ?? null
        return point
      }))
    }
    this.setProcesses(processes, { record: false })
  }

  // A push of the whole current list; records one history point per process.
  setProcesses (list, { record = true } = {}) {
    const previousIndex = this.selectedIndex()
    const previousIds = new Set(this.processes.map((p) => p.id))
    this.processes = (Array.isArray(list) ? list : []).slice().sort((a, b) => a.id - b.id)
    const ids = new Set(this.processes.map((p) => p.id))
    for (const id of previousIds) {
      if (!ids.has(id)) {
        this.history.delete(id)
        this.logs.delete(id)
      }
    }
    if (record) {
      const at = this.now()
      for (const proc of this.processes) {
        if (!this.history.has(proc.id)) this.history.set(proc.id, [])
        pushBounded(this.history.get(proc.id), pointOf(proc, at), this.historySize)
      }
    }
    if (!ids.has(this.selectedId)) {
      const index = Math.min(Math.max(previousIndex, 0), this.processes.length - 1)
      this.selectedId = index >= 0 ? this.processes[index].id : null
    }
  }

  addLog ({ id, app, instance, stream, time, line } = {}) {
    const proc = id != null
      ? { id }
      : this.processes.find((p) => p.name === app && p.instance === instance)
    if (!proc) return false
    if (!this.logs.has(proc.id)) this.logs.set(proc.id, [])
    pushBounded(this.logs.get(proc.id), { time: time ?? this.now(), stream: stream || 'out', line: String(line ?? '') }, this.logSize)
    this.logVersion++
    return proc.id === this.selectedId
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
    if (height <= 0 || count === 0) return { start: 0, rows: [] }
    const sel = Math.max(this.selectedIndex(), 0)
    if (sel < this.scrollTop) this.scrollTop = sel
    if (sel >= this.scrollTop + height) this.scrollTop = sel - height + 1
    this.scrollTop = Math.max(0, Math.min(this.scrollTop, count - height))
    return { start: this.scrollTop, rows: this.processes.slice(this.scrollTop, this.scrollTop + height) }
  }

  historyOf (id) {
    return this.history.get(id) || []
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

module.exports = { MonitModel, pointOf }
