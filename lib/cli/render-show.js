'use strict'

const { formatBytes, formatDuration, formatUptime } = require('../shared/quantity')
const { formatPercent } = require('./format')
const { lastEventLine } = require('./render-why')
const { renderTable } = require('./table')

// The fields `xpm show` prints: the daemon sends these only (no history, a few spec keys).
const SHOW_FIELDS = [
  'id', 'name', 'instance', 'status', 'pid', 'uptime', 'createdAt', 'restarts', 'lastRestartReason',
  'lastExit', 'cpu', 'memory', 'metrics', 'logs', 'ready', 'notReadyReason', 'lastEvent', 'pm2Io', 'otel',
  'spec.script', 'spec.args', 'spec.cwd', 'spec.execMode', 'spec.instances', 'spec.instancesFrom', 'spec.interpreter', 'spec.nodeArgs'
]

// `xpm show` / `describe`: one two-column table per process (PM2 draws describe as a table).
function renderShow (details, options = {}) {
  return details.map((p) => renderOne(p, options)).join('\n')
}

function renderOne (p, options) {
  const s = p.spec
  const m = p.metrics
  const exit = p.lastExit
    ? `${exit0(p.lastExit)} at ${new Date(p.lastExit.at).toISOString()}${p.lastExit.reason ? ` (${p.lastExit.reason})` : ''}`
    : '-'
  const rows = [
    ['name', `${p.name} (id ${p.id}, instance ${p.instance})`],
    ['status', p.status],
    ['pid', p.pid || '-'],
    ['script', s.script],
    ['args', (s.args || []).join(' ') || '-'],
    ['cwd', s.cwd],
    ['exec mode', `${s.execMode}${s.execMode === 'cluster' ? ` (${s.instances} instances)` : ''}`],
    ...(s.instancesFrom ? [['instances from', instancesFrom(s)]] : []),
    ['interpreter', s.interpreter === 'node' ? `node ${process.version}${(s.nodeArgs || []).length ? ' ' + s.nodeArgs.join(' ') : ''}` : s.interpreter],
    ['uptime', p.pid ? formatUptime(p.uptime) : '-'],
    ['created at', new Date(p.createdAt).toISOString()],
    ['restarts', String(p.restarts) + (p.lastRestartReason ? ` (last: ${p.lastRestartReason})` : '')],
    ['last exit', exit],
    // the newest entry of the restart journal (`xpm why`) and the readiness probe's verdict
    ...(p.lastEvent !== undefined ? [['last event', lastEventLine(p.lastEvent)]] : []),
    ...(typeof p.ready === 'boolean' ? [['ready', p.ready ? 'yes (readiness probe passing)' : `no${p.notReadyReason ? ` (${p.notReadyReason})` : p.status === 'online' ? '' : ` (${p.status})`}`]] : []),
    ['cpu', formatPercent(p.cpu)],
    ['memory', formatBytes(p.memory)]
  ]
  // A process without the agent (non-Node, metrics off) has no agent figures, not zeroes.
  if (m && typeof m.heapUsed === 'number') {
    rows.push(['heap', `${formatBytes(m.heapUsed)} / ${formatBytes(m.heapTotal)}`])
    rows.push(['loop delay', `p50 ${formatDuration(m.elP50)}  p95 ${formatDuration(m.elP95)}  p99 ${formatDuration(m.elP99)}  max ${formatDuration(m.elMax)}`])
    rows.push(['loop utilization', `${Math.round((m.elu || 0) * 100)}%`])
  }
  if (p.logs) {
    rows.push(['out log', p.logs.out])
    rows.push(['error log', p.logs.err])
    if (p.logs.combined) rows.push(['combined log', p.logs.combined])
  }
  rows.push(...otelRows(p.otel))
  const table = renderTable(rows.map(([k, v]) => [k, String(v)]), { flex: 1, wrapOnWords: false, ...options })
  return table + codeMetrics(p.pm2Io, options)
}

// An app's @pm2/io metrics (io.metric(), as they last came), under their own heading, as PM2's
// describe prints "Code metrics value".
function codeMetrics (pm2Io, options) {
  const names = pm2Io && typeof pm2Io === 'object' ? Object.keys(pm2Io) : []
  if (!names.length) return ''
  const rows = names.map((name) => {
    const m = pm2Io[name]
    const value = m !== null && typeof m === 'object' ? m.value : m
    const unit = m !== null && typeof m === 'object' && m.unit ? ` ${m.unit}` : ''
    return [name, `${typeof value === 'object' ? JSON.stringify(value) : String(value)}${unit}`]
  })
  return 'Code metrics (@pm2/io)\n' + renderTable(rows, { flex: 1, wrapOnWords: false, ...options })
}

// `otel` (docs/otel.md): where each signal goes; for metrics and logs, which the daemon sends
// itself, the last export's result and what was dropped.
function otelRows (otel) {
  if (!otel) return []
  const rows = []
  for (const signal of ['traces', 'metrics', 'logs']) {
    const d = otel[signal]
    if (!d) continue
    let text = `${d.url} (${d.protocol}${d.disabled ? ', OTEL_SDK_DISABLED' : ''})`
    if (signal !== 'traces') {
      const last = d.lastExport ? `last export ${d.lastExport.ok ? 'ok' : `failed: ${d.lastExport.error}`} at ${new Date(d.lastExport.at).toISOString()}` : 'no export yet'
      text += `; ${d.exported} sent, ${d.dropped} dropped${d.droppedQueueFull ? ` (${d.droppedQueueFull} with the queue full)` : ''}; ${last}`
    }
    rows.push([`otel ${signal}`, text])
  }
  if (otel.error) rows.push(['otel', otel.error])
  return rows
}

// instances: 'max' (0, -n) and the CPUs it counted: where that number came from (lib/shared/cpus.js).
function instancesFrom (s) {
  const f = s.instancesFrom
  const scaled = f.count !== s.instances ? `; scaled to ${s.instances} since` : ''
  return `${JSON.stringify(f.requested)} → ${f.count} (${f.source}${scaled})`
}

function exit0 (e) {
  return e.signal ? `signal ${e.signal}` : `code ${e.code}`
}

module.exports = { renderShow, SHOW_FIELDS }
