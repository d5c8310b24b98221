'use strict'

// Which processes the open pages show, for the hub's one subscription (hub.js): the union of the
// rows each page has in view plus its selected one (POST /api/watch). The daemon samples those
// every second and leaves the others on its idle schedule (the `watch` method,
// docs/protocol.md); it is told whenever the union changes, one request at a time, the latest
// union winning, as `xpm monit` does (lib/cli/monit/watch-shown.js). A daemon without `watch`
// (older) keeps sending every process in full.
const MAX_PAGE_IDS = 512 // what one page may name (a tall window shows ~60 rows)
const MAX_IDS = 1024 // the daemon's limit for `ids`

class ShownIds {
  // onHistory(history): the daemon's recent points of the ids newly watched.
  constructor ({ onHistory = () => {} } = {}) {
    this.onHistory = onHistory
    this.bySink = new Map() // sink → Set of ids
    this.client = null
    this.sent = null
    this.watching = null // the ids the daemon was last told (null: none yet)
    this.inFlight = false
  }

  // The ids a subscribe should name before any page said what it shows.
  ids () {
    const all = new Set()
    for (const set of this.bySink.values()) for (const id of set) all.add(id)
    return [...all].sort((a, b) => a - b).slice(0, MAX_IDS)
  }

  // A new subscription (subscribed with `ids`): the union is told again when it changes.
  use (client, ids) {
    this.client = client
    this.sent = ids.join(',')
    this.watching = ids
    this.sync()
  }

  stop () {
    this.client = null
    this.watching = null
  }

  set (sink, ids) {
    this.bySink.set(sink, new Set(ids.slice(0, MAX_PAGE_IDS)))
    this.sync()
  }

  drop (sink) {
    if (this.bySink.delete(sink)) this.sync()
  }

  sync () {
    const client = this.client
    if (!client || this.inFlight) return
    const ids = this.ids()
    const key = ids.join(',')
    if (key === this.sent) return
    this.sent = key
    this.watching = ids
    this.inFlight = true
    client.request('watch', { ids }).then((reply) => {
      if (this.client === client) this.onHistory(reply?.history)
    }, (err) => {
      if (err?.code === 'XPM_ERR_UNKNOWN_METHOD' && this.client === client) this.client = null
    }).finally(() => {
      this.inFlight = false
      this.sync()
    })
  }
}

// The body of POST /api/watch: { sink, ids } with ids an array of process ids; across hosts
// (labels given) { sink, hosts: { <label>: ids } }, MAX_PAGE_IDS in all.
function parseWatch (body, labels = null) {
  const idList = (ids) => Array.isArray(ids) && ids.length <= MAX_PAGE_IDS && ids.every((id) => Number.isSafeInteger(id) && id >= 0)
  if (!body || !Number.isSafeInteger(body.sink)) return null
  if (!labels) return idList(body.ids) ? { sink: body.sink, ids: body.ids } : null
  const hosts = body.hosts
  if (!hosts || typeof hosts !== 'object' || Array.isArray(hosts)) return null
  let count = 0
  for (const [label, ids] of Object.entries(hosts)) {
    if (!labels.includes(label) || !idList(ids)) return null
    count += ids.length
  }
  return count <= MAX_PAGE_IDS ? { sink: body.sink, hosts } : null
}

module.exports = { ShownIds, parseWatch, MAX_PAGE_IDS }
