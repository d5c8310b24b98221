'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { show } = require('../../lib/shared/units')
const { projector } = require('../../lib/shared/process-fields')

// The `processes` topic of `subscribe` (`xpm monit`, `xpm web`): the process list pushed after
// each metrics round (about 1 Hz while watched). A subscriber that names the processes it shows
// (`ids`) keeps only those at the full rate (sampled, and their agents reporting, every second);
// the others stay on the idle schedule (every 30 s) and are pushed as summary rows (the fields
// of SUMMARY_FIELDS it asked for, figures from their last sample), enough for a list and its
// totals. `watch` changes the ids of the connection's subscription (the dashboard scrolled).

const SUMMARY_FIELDS = ['id', 'name', 'instance', 'status', 'cpu', 'memory']
const MAX_IDS = 1024
const subscriptions = new WeakMap() // connection → { setIds(ids) → newly watched ids }

// params.ids: absent or null (every process), or an array of up to 1024 process ids.
function optionalIds (params) {
  const value = params.ids
  if (value === undefined || value === null) return null
  if (Array.isArray(value) && value.length <= MAX_IDS && value.every((id) => Number.isSafeInteger(id) && id >= 0)) return value
  throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected \`ids\` to be null or an array of up to ${MAX_IDS} process ids, got ${show(value)}`)
}

// Rows of every process: `fields` of the watched ones (all when watched is null), the summary
// fields of the others.
function processRows (supervisor, fields, watched) {
  if (watched === null) return supervisor.list({ fields })
  const full = fields ? projector(fields) : (row) => row
  const summaryFields = fields ? SUMMARY_FIELDS.filter((f) => fields.includes(f)) : SUMMARY_FIELDS
  const summary = projector(summaryFields.length ? summaryFields : ['id'])
  return supervisor.allInstances().map((inst) => {
    const row = inst.toJSON(supervisor.metrics)
    return watched.has(row.id) ? full(row) : summary(row)
  })
}

// Starts the pushes on `conn` until it closes. Resolves once the watched figures are fresh.
async function subscribeProcesses ({ supervisor, metrics }, conn, { fields, ids }) {
  let watched = ids === null ? null : new Set(ids)
  const onSample = () => conn.push('processes', processRows(supervisor, fields, watched))
  metrics.on('sample', onSample)
  const release = metrics.watch(watched)
  conn.onClose(() => {
    metrics.off('sample', onSample)
    release()
    subscriptions.delete(conn)
  })
  subscriptions.set(conn, {
    fields,
    setIds (next) {
      const before = watched
      watched = next === null ? null : new Set(next)
      release.update(watched)
      return watched === null ? [] : [...watched].filter((id) => before !== null && !before.has(id))
    }
  })
  await (ids === null ? metrics.fresh() : metrics.fresh(ids, { lease: false, scrape: false }))
  return (rowsFields) => processRows(supervisor, rowsFields, watched)
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
