'use strict'

const { XpmError } = require('../../shared/errors')

// `xpm monit --hosts`: the daemons of several hosts (lib/cli/fleet, one ssh connection each) as the
// one daemon client monit drives (index.js, watch-shown.js, recent-logs.js), so its model, keys
// and screen work across hosts unchanged. A process of host i (0-based, in the order given) is
// known by key i * 2^32 + its id there: ids stay numbers, rows sort by host then id, and each
// carries `host` (the label) and `hostId` (its id there) for the screen. A host whose connection
// drops keeps its rows, their status `unreachable` and their figures cleared: never stopped. It
// is tried again (RETRY_MIN_MS, doubling up to RETRY_MAX_MS): once back, its subscription is made
// again with the rows it had watched, and its current rows replace the old ones.
// 'close' comes only once every host is gone and none can be tried again.

const { EventEmitter } = require('node:events')

const SPAN = 2 ** 32
const RETRY_MIN_MS = 1000
const RETRY_MAX_MS = 30000
const key = (i, id) => i * SPAN + id
const hostOf = (k) => Math.floor(k / SPAN)
const idOf = (k) => k % SPAN

class FleetClient extends EventEmitter {
  // fleet: openFleet's answer ({ hosts: [{ label, host, client, error }] }); reconnect(entry): a
  // new client of that host (lib/cli/fleet/connect.js), or null: a host gone stays gone
  constructor (fleet, { reconnect = null, timers = { setTimeout, clearTimeout } } = {}) {
    super()
    Object.assign(this, { fleet, reconnect, timers })
    this.entries = fleet.hosts
    this.clients = this.entries.map((e) => e.client)
    this.rows = this.entries.map(() => new Map()) // per host: key → last row
    this.watched = this.entries.map(() => null) // per host: the ids last watched there
    this.waits = this.entries.map(() => RETRY_MIN_MS)
    this.retries = new Set()
    this.subscribed = null // the subscribe's params, to make it again on a host back
    this.gone = new Set() // indexes of hosts unreachable
    this.clients.forEach((client, i) => (client ? this.use(i, client) : this.gone.add(i)))
  }

  use (i, client) {
    this.clients[i] = client
    client.on('event', (msg) => { if (this.clients[i] === client) this.onEvent(i, msg) })
    client.once('close', () => { if (this.clients[i] === client) this.down(i) })
  }

  get unreachable () {
    return [...this.gone].map((i) => ({ label: this.entries[i].label, message: this.entries[i].error?.message ?? null }))
  }

  labels () {
    return this.entries.map((e) => e.label)
  }

  row (i, p) {
    const row = { ...p, id: key(i, p.id), hostId: p.id, host: this.entries[i].label }
    this.rows[i].set(row.id, row)
    return row
  }

  history (i, history) {
    const out = {}
    for (const [id, points] of Object.entries(history || {})) out[key(i, Number(id))] = points
    return out
  }

  async request (method, params = {}, opts) {
    if (method === 'subscribe') {
      this.subscribed = params
      const replies = await this.each((client) => client.request(method, params, opts))
      const processes = []
      const history = {}
      replies.forEach((reply, i) => {
        if (!reply) return
        for (const p of reply.processes || []) processes.push(this.row(i, p))
        Object.assign(history, this.history(i, reply.history))
      })
      return { processes, history }
    }
    if (method === 'watch') {
      const byHost = this.entries.map(() => [])
      for (const k of params.ids || []) byHost[hostOf(k)]?.push(idOf(k))
      byHost.forEach((ids, i) => { this.watched[i] = ids })
      const replies = await this.each((client, i) => client.request('watch', { ids: byHost[i] }, opts))
      return { history: Object.assign({}, ...replies.map((r, i) => this.history(i, r?.history))) }
    }
    if (method === 'logs' && /^\d+$/.test(String(params.target))) {
      const k = Number(params.target)
      const client = this.gone.has(hostOf(k)) ? null : this.clients[hostOf(k)]
      if (!client) return { lines: [] }
      return client.request('logs', { ...params, target: String(idOf(k)) }, opts)
    }
    throw new XpmError('XPM_ERR_UNKNOWN_METHOD', `${method} is not sent across hosts by monit`)
  }

  // fn(client, i) on every reachable host at once; a host that fails is marked down (null)
  each (fn) {
    return Promise.all(this.clients.map((client, i) => (client && !this.gone.has(i)
      ? fn(client, i).catch((err) => {
        if (err?.code === 'XPM_ERR_UNKNOWN_METHOD') throw err
        return null
      })
      : null)))
  }

  onEvent (i, { event, data }) {
    if (event === 'processChanges') {
      const rows = (data?.rows || []).map((p) => this.row(i, p))
      const removed = (data?.removed || []).map((id) => key(i, id))
      for (const k of removed) this.rows[i].delete(k)
      this.emit('event', { event, data: { rows, removed } })
    } else if (event === 'processes') { // an older daemon: its whole list, as the changes of this host
      const before = new Set(this.rows[i].keys())
      const rows = (Array.isArray(data) ? data : []).map((p) => this.row(i, p))
      for (const r of rows) before.delete(r.id)
      for (const k of before) this.rows[i].delete(k)
      this.emit('event', { event: 'processChanges', data: { rows, removed: [...before] } })
    } else if (event === 'log' && data) {
      this.emit('event', { event, data: { ...data, id: data.id == null ? null : key(i, data.id), app: data.app } })
    }
  }

  down (i) {
    if (this.gone.has(i) || this.closing) return
    this.gone.add(i)
    const rows = [...this.rows[i].values()].map((r) => ({ ...r, status: 'unreachable', pid: null, cpu: null, memory: null, metrics: null }))
    this.emit('event', { event: 'processChanges', data: { rows, removed: [] } })
    if (this.reconnect) this.retry(i)
    else if (this.gone.size === this.entries.length) this.emit('close')
  }

  retry (i) {
    const wait = this.waits[i]
    this.waits[i] = Math.min(RETRY_MAX_MS, wait * 2)
    const timer = this.timers.setTimeout(async () => {
      this.retries.delete(timer)
      if (this.closing) return
      let client = null
      try {
        client = await this.reconnect(this.entries[i])
        if (this.closing) return client.close()
        const reply = await client.request('subscribe', { ...this.subscribed, ids: this.watched[i] ?? this.subscribed?.ids ?? [] })
        this.use(i, client)
        this.gone.delete(i)
        this.waits[i] = RETRY_MIN_MS
        const before = new Set(this.rows[i].keys())
        this.rows[i].clear()
        const rows = (reply?.processes || []).map((p) => this.row(i, p))
        for (const r of rows) before.delete(r.id)
        this.emit('event', { event: 'processChanges', data: { rows, removed: [...before] } })
      } catch {
        client?.close()
        if (!this.closing) this.retry(i)
      }
    }, wait)
    timer.unref?.()
    this.retries.add(timer)
  }

  close () {
    this.closing = true
    for (const timer of this.retries) this.timers.clearTimeout(timer)
    this.fleet.close()
    this.clients.forEach((client, i) => { if (client && client !== this.entries[i].client) client.close() })
  }
}

module.exports = { FleetClient, key, hostOf, idOf }
