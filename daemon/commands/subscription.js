'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { show } = require('../../lib/shared/units')
const { projector } = require('../../lib/shared/process-fields')
const { ProcessChanges } = require('./process-changes')

// The `processes` topic of `subscribe` (`xpm monit`, `xpm web`): the process list pushed after
// each metrics round (about 1 Hz while watched). A subscriber that names the processes it shows
// (`ids`) keeps only those at the full rate (sampled, and their agents reporting, every second);
// the others stay on the idle schedule (every 30 s) and are pushed as summary rows (the fields
// of SUMMARY_FIELDS it asked for, figures from their last sample), enough for a list and its
// totals. `watch` changes the ids of the connection's subscription (the dashboard scrolled).
// With `changes: true`, the pushes carry only the rows that changed (process-changes.js): what
// `xpm monit` and `xpm web` ask for, so watching costs what is shown.

// what changes only with an event or the 30 s round: enough for a list, its totals, its filter
const SUMMARY_FIELDS = ['id', 'name', 'namespace', 'instance', 'mode', 'status', 'restarts', 'cpu', 'memory']
const MAX_IDS = 1024
const subscriptions = new WeakMap() // connection → { setIds(ids) → newly watched ids }

// params.ids: absent or null (every process), or an array of up to 1024 process ids.
function optionalIds (params) {
  const value = params.ids
  if (value === undefined || value === null) return null
  if (Array.isArray(value) && value.length <= MAX_IDS && value.every((id) => Number.isSafeInteger(id) && id >= 0)) return value
  throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected \`ids\` to be null or an array of up to ${MAX_IDS} process ids, got ${show(value)}`)
}

function summaryFieldsOf (fields) {
  const summaryFields = fields ? SUMMARY_FIELDS.filter((f) => fields.includes(f)) : SUMMARY_FIELDS
  return summaryFields.length ? summaryFields : ['id']
}

// Rows of every process: `fields` of the watched ones (all when watched is null), the summary
// fields of the others.
function processRows (supervisor, fields, watched) {
  if (watched === null) return supervisor.list({ fields })
  const full = fields ? projector(fields) : (row) => row
  const summary = projector(summaryFieldsOf(fields))
  return supervisor.allInstances().map((inst) => {
    const row = inst.toJSON(supervisor.metrics)
    return watched.has(row.id) ? full(row) : summary(row)
  })
}

// Starts the pushes on `conn` until it closes. Resolves once the watched figures are fresh.
// changes: `processChanges` pushes of what changed (process-changes.js) instead of the whole list.
async function subscribeProcesses ({ supervisor, metrics }, conn, { fields, ids, changes = false }) {
  let watched = ids === null ? null : new Set(ids)
  const feed = changes ? new ProcessChanges({ supervisor, metrics, fields, summaryFields: summaryFieldsOf(fields), push: (event, data) => conn.push(event, data) }) : null
  feed?.start(watched)
  const onSample = () => conn.push('processes', processRows(supervisor, fields, watched))
  if (!feed) metrics.on('sample', onSample)
  const release = metrics.watch(watched)
  conn.onClose(() => {
    if (feed) feed.close()
    else metrics.off('sample', onSample)
    release()
    subscriptions.delete(conn)
  })
  subscriptions.set(conn, {
    fields,
    setIds (next) {
      const before = watched
      watched = next === null ? null : new Set(next)
      release.update(watched)
      feed?.setWatched(watched)
      return watched === null ? [] : [...watched].filter((id) => before !== null && !before.has(id))
    }
  })
  await (ids === null ? metrics.fresh() : metrics.fresh(ids, { lease: false, scrape: false }))
  return (rowsFields) => feed ? feed.snapshot() : processRows(supervisor, rowsFields, watched)
}

// `watch { ids }`: the processes this connection's subscription shows from now on. Replies the
// recent history of the ids newly watched (their charts), sampled first.
async function watch ({ metrics }, params, conn) {
  const ids = optionalIds(params)
  const sub = subscriptions.get(conn)
  if (!sub) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '`watch` needs a `subscribe` to the processes topic on the same connection first')
  const added = sub.setIds(ids)
  if (added.length) await metrics.fresh(added, { lease: false, scrape: false })
  return { history: metrics.recent(added, { fields: sub.fields }) }
}

module.exports = { subscribeProcesses, watch, optionalIds, processRows, SUMMARY_FIELDS }
