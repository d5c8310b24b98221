'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { target, isAll, optionalBoolean, optionalSubset, optionalFields, lineCount } = require('./params')
const { subscribeProcesses, optionalIds } = require('./subscription')

// The socket methods that read: logs, flush, and the live feed of `xpm monit` and `xpm web`
// (subscribe; watch changes which processes a subscription shows: ./subscription.js).
// ctx: { supervisor, logSink, metrics } (daemon/methods.js).

// Live process list (about 1 Hz, after each metrics sample) and log lines for `xpm monit`.
// A processes subscriber keeps the metrics at the full rate until it goes (metrics.watch()).
// ids: the processes the subscriber shows (daemon/commands/subscription.js); absent: all of them.
// changes: pushes of the rows that changed only (`processChanges`, process-changes.js).
async function subscribe ({ supervisor, metrics, logSink }, params, conn) {
  const topics = new Set(optionalSubset(params, 'topics', ['processes', 'logs'], ['processes']))
  const fields = optionalFields(params)
  const ids = optionalIds(params)
  let rows = (only) => supervisor.list({ fields: only })
  const changes = optionalBoolean(params, 'changes', false)
  if (topics.has('processes') && metrics) rows = await subscribeProcesses({ supervisor, metrics }, conn, { fields, ids, changes })
  if (topics.has('logs') && logSink) {
    const unsubscribe = logSink.subscribe({ names: null, ids: null, streams: new Set(['out', 'err']) }, (line) => conn.push('log', line))
    conn.onClose(unsubscribe)
  }
  const historyIds = ids === null ? supervisor.allInstances().map((i) => i.id) : ids
  const history = metrics ? metrics.recent(historyIds, { fields }) : {}
  return { processes: rows(fields), history }
}

// perFile: the last `lines` lines of each log file (PM2's way), in file order, and the files
// with their line counts; otherwise the last `lines` lines of all of them together.
async function logs ({ supervisor, logSink }, params, conn) {
  if (!logSink) throw new XpmError('XPM_ERR_UNKNOWN_METHOD', 'This daemon has no log sink')
  const name = target(params, { optional: true })
  const filter = { names: null, ids: null, streams: new Set(optionalSubset(params, 'streams', ['out', 'err'], ['out', 'err'])) }
  const lines = lineCount(params)
  const follow = optionalBoolean(params, 'follow', true)
  const perFile = optionalBoolean(params, 'perFile', false)
  if (!isAll(name)) {
    // whole apps by name (their lines read back from files carry no id); a process id alone: its lines
    const targets = Array.isArray(name) ? name : [name]
    const instances = supervisor.resolve(name)
    const byId = targets.every((t) => /^\d+$/.test(t) && instances.some((i) => i.id === Number(t))) // an id wins over a name of digits
    if (byId) filter.ids = new Set(instances.map((i) => i.id))
    else filter.names = new Set(instances.map((i) => i.name))
  }
  if (!follow) return perFile ? logSink.tailPerFile(filter, lines) : { lines: await logSink.tail(filter, lines) }
  const onLine = (line) => conn.push('log', line)
  const history = await logSink.tailAndSubscribe(filter, lines, onLine, (unsubscribe) => conn.onClose(unsubscribe), { perFile })
  return perFile ? history : { lines: history }
}

async function flush ({ supervisor, logSink }, params) {
  const name = target(params, { optional: true })
  if (isAll(name)) return logSink?.flush(null)
  const names = [...new Set(supervisor.resolve(name, { allowEmpty: true }).map((i) => i.name))]
  await Promise.all(names.map((n) => logSink?.flush(n)))
}

module.exports = { subscribe, logs, flush }
