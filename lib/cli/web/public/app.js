// The xpm web page, no framework: the live process table (server-sent events from /api/events;
// table.js, its rows in view told by shown.js), the selected process's charts (charts.js), live log
// (/api/logs, log-panel.js), restart journal (/api/why), actions (page-actions.js). Across hosts
// (`xpm web --hosts`) every row has its host, a row's key is `<host>/<id>`, what concerns the
// selected process goes to its host, and hosts.js shows which hosts are live or unreachable.
/* global requestAnimationFrame */
import { formatBytes } from './quantity.js'
import * as auth from './auth.js'
import { LogPanel } from './log-panel.js'
import { makeColumns } from './columns.js'
import { ShownReporter } from './shown.js'
import { VirtualTable } from './table.js'
import { renderJournal, renderJournalError } from './journal.js'
import { Charts } from './charts.js'
import { HostBar } from './hosts.js'
import { wireActions } from './page-actions.js'

const $ = (id) => document.getElementById(id)
let charts = null // made once the page's layout is known (their width)
const logs = new LogPanel({ box: $('logs'), note: $('log-note'), pause: $('pause'), filter: $('log-filter') })

const state = {
  session: null,
  fleet: false, // across hosts
  col: null, // column name → index in a row array
  rows: new Map(), // key → row array
  at: 0, // the server time of the last frame
  receivedAt: 0,
  sort: { key: 'id', desc: false },
  filter: '',
  host: null, // the one host shown (a chip picked)
  selectedId: null, // the selected row's key
  selectedHost: null,
  selectedApp: null,
  lastRestarts: null
}
const hostBar = new HostBar({ box: $('hosts'), onPick: (label) => { state.host = label; refreshView() } })
state.unreachable = (label) => hostBar.unreachable(label)

let v, key, shownStatus, cpuText, observe, forget, table
const shown = new ShownReporter({ csrf: () => state.session.csrf })

// what the page has in view, as POST /api/watch takes it: ids, or ids per host
function reportShown (keys) {
  if (!state.fleet) return shown.report({ ids: keys })
  const hosts = {}
  for (const k of keys) {
    const row = state.rows.get(k)
    if (row) (hosts[v(row, 'host')] ||= []).push(v(row, 'id'))
  }
  shown.report({ hosts })
}

// the table, once the session says whether it spans hosts (a host column first)
function makeTable () {
  const columns = makeColumns(state)
  ;({ v, key, shownStatus, cpuText, observe, forget } = columns)
  table = new VirtualTable({
    viewport: $('viewport'), sizer: $('sizer'), rows: $('rows'), columns: columns.COLUMNS, rowClass: columns.rowClass, keyOf: key, onSelect: select, onShown: reportShown
  })
  table.renderHead($('thead'))
}

// ---- header, sorting, filter -------------------------------------------------------------
$('thead').addEventListener('click', (e) => {
  const key = e.target.dataset?.key
  if (!key) return
  state.sort = { key, desc: state.sort.key === key ? !state.sort.desc : ['cpu', 'memory', 'heapUsed', 'elP99', 'restarts', 'uptime'].includes(key) }
  refreshView()
})
let filterTimer = null
$('filter').addEventListener('input', () => {
  clearTimeout(filterTimer)
  filterTimer = setTimeout(() => { state.filter = $('filter').value.trim().toLowerCase(); refreshView() }, 120)
})

function compare (a, b) {
  const key = state.sort.key
  let x = key === 'status' ? shownStatus(a) : v(a, key)
  let y = key === 'status' ? shownStatus(b) : v(b, key)
  if (x == null) x = typeof y === 'string' ? '' : -Infinity
  if (y == null) y = typeof x === 'string' ? '' : -Infinity
  const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y), undefined, { numeric: true }) : x - y
  return (state.sort.desc ? -order : order) || String(v(a, 'host')).localeCompare(String(v(b, 'host')), undefined, { numeric: true }) || v(a, 'id') - v(b, 'id')
}

function matches (row) {
  if (state.host !== null && v(row, 'host') !== state.host) return false
  if (!state.filter) return true
  const hay = `${v(row, 'host') ?? ''} ${v(row, 'id')} ${v(row, 'name')} ${v(row, 'namespace') ?? ''} ${shownStatus(row)} ${v(row, 'mode') ?? ''}`.toLowerCase()
  return state.filter.split(/\s+/).every((word) => hay.includes(word))
}

let viewQueued = false
function refreshView () {
  if (viewQueued) return
  viewQueued = true
  requestAnimationFrame(() => {
    viewQueued = false
    const list = []
    for (const row of state.rows.values()) if (matches(row)) list.push(row)
    list.sort(compare)
    table.setList(list)
    for (const span of $('thead').children) {
      span.classList.toggle('sorted', span.dataset.key === state.sort.key)
      span.classList.toggle('desc', span.dataset.key === state.sort.key && state.sort.desc)
    }
    summary(list.length)
  })
}

function summary (shown) {
  let online = 0
  let cpu = 0
  let memory = 0
  const counts = new Map()
  for (const row of state.rows.values()) {
    if (state.fleet) counts.set(v(row, 'host'), (counts.get(v(row, 'host')) || 0) + 1)
    if (shownStatus(row) === 'unreachable') continue
    if (v(row, 'status') === 'online') online++
    cpu += v(row, 'cpu') || 0
    memory += v(row, 'memory') || 0
  }
  const total = state.rows.size
  if (state.fleet) hostBar.render(counts)
  $('summary').textContent = `${total} process${total === 1 ? '' : 'es'}${state.fleet ? hostBar.summary() : ''}, ${online} online · cpu ${cpuText(cpu)} · memory ${formatBytes(memory)}` +
    (shown !== total ? ` · ${shown} shown` : '')
}

// ---- live table ----------------------------------------------------------------------------
// One stream per page (browsers allow six connections per address over HTTP/1.1, so a second
// one would cap a dashboard at three tabs): the table, and the log of the selected app. A new
// app reopens it, a moment after the selection settles.
let source = null
let reopenTimer = null
function reopenEvents () {
  clearTimeout(reopenTimer)
  reopenTimer = setTimeout(connectEvents, source ? 200 : 0)
}

const hostQuery = (host) => (host == null ? '' : `&host=${encodeURIComponent(host)}`)

function connectEvents () {
  shown.setSink(null) // its stream closes: nothing more is told for it (its successor's full frame names the next)
  if (source) source.close()
  const app = state.selectedApp
  source = new auth.TicketedSource(app === null ? '/api/events' : `/api/events?logs=${encodeURIComponent(app)}${hostQuery(state.selectedHost)}`)
  source.addEventListener('lines', (e) => logs.onBatch(JSON.parse(e.data), app))
  source.addEventListener('failed', (e) => logs.failed(JSON.parse(e.data).message))
  source.addEventListener('open', () => setConn(true))
  source.addEventListener('error', () => setConn(false))
  source.addEventListener('gone', (e) => setConn(false, JSON.parse(e.data).message))
  source.addEventListener('hosts', (e) => hostBar.reset(JSON.parse(e.data).hosts))
  source.addEventListener('host', (e) => {
    const h = JSON.parse(e.data)
    hostBar.set(h)
    // the selected process's host is back: its log and chart points again
    if (h.state === 'up' && h.label === state.selectedHost) reopenEvents()
    refreshView()
  })
  source.addEventListener('full', (e) => {
    const frame = JSON.parse(e.data)
    const host = frame.host ?? null
    state.col = Object.fromEntries([...frame.columns, 'host'].map((name, i) => [name, i]))
    if (host === null) state.rows = new Map()
    else for (const [k, row] of state.rows) if (v(row, 'host') === host) state.rows.delete(k)
    for (const row of frame.rows) put(row, host)
    shown.setSink(frame.sink)
    state.at = frame.at
    state.receivedAt = Date.now()
    if (state.selectedId === null && frame.rows.length) select(key(frame.rows.reduce((a, b) => (b[0] < a[0] ? b : a))))
    else if (state.selectedId !== null && (host === null || host === state.selectedHost)) loadHistory(state.selectedId)
    refreshView()
  })
  source.addEventListener('diff', (e) => {
    if (!state.col) return
    const frame = JSON.parse(e.data)
    const host = frame.host ?? null
    for (const row of frame.rows) put(row, host)
    for (const id of frame.removed) {
      const k = host === null ? id : `${host}/${id}`
      state.rows.delete(k)
      forget(k)
    }
    state.at = frame.at
    state.receivedAt = Date.now()
    const sel = state.rows.get(state.selectedId)
    if (sel && host === state.selectedHost) {
      charts.add({ at: frame.at, cpu: v(sel, 'cpu'), memory: v(sel, 'memory'), heapUsed: v(sel, 'heapUsed'), elP99: v(sel, 'elP99') })
      const restarts = v(sel, 'restarts')
      if (state.lastRestarts !== null && restarts !== state.lastRestarts) loadJournal()
      state.lastRestarts = restarts
      setTitle(sel)
    }
    refreshView()
  })
}

// a row as the server sent it, with its host (null for one daemon) after the server's columns
function put (row, host) {
  row[state.col.host] = host
  state.rows.set(key(row), row)
  observe(row)
}

function setConn (up, message) {
  $('conn').textContent = up ? 'live' : message || 'reconnecting…'
  $('conn').classList.toggle('down', !up)
}

// ---- selection, keyboard -------------------------------------------------------------------
function titleOf (row) {
  return `${v(row, 'name')}${v(row, 'instance') != null ? ` [${v(row, 'instance')}]` : ''} · id ${v(row, 'id')}${v(row, 'host') != null ? ` on ${v(row, 'host')}` : ''} · pid ${v(row, 'pid') ?? '-'} · ${shownStatus(row)}`
}

function setTitle (row) {
  $('sel-title').textContent = $('sel-title').title = titleOf(row)
}

function select (k) {
  const row = state.rows.get(k)
  if (!row) return
  const appChanged = v(row, 'name') !== state.selectedApp || v(row, 'host') !== state.selectedHost
  state.selectedId = k
  state.selectedHost = v(row, 'host')
  state.selectedApp = v(row, 'name')
  state.lastRestarts = v(row, 'restarts')
  table.select(k)
  setTitle(row)
  $('inst-label').textContent = `process ${v(row, 'id')}`
  loadHistory(k)
  if (appChanged) {
    logs.clear()
    reopenEvents()
    loadJournal()
  }
}

$('viewport').addEventListener('keydown', (e) => {
  if (!['ArrowDown', 'ArrowUp', 'j', 'k'].includes(e.key)) return
  e.preventDefault()
  const list = table.list
  const i = list.findIndex((r) => key(r) === state.selectedId)
  const next = list[Math.max(0, Math.min(list.length - 1, i + (e.key === 'ArrowDown' || e.key === 'j' ? 1 : -1)))]
  if (next) {
    select(key(next))
    table.reveal(key(next))
  }
})

async function loadHistory (k) {
  const row = state.rows.get(k)
  if (!row) return
  const res = await auth.fetch(`/api/history?id=${v(row, 'id')}${hostQuery(v(row, 'host'))}`)
  if (!res.ok || k !== state.selectedId) return
  charts.load(await res.json())
}

// ---- journal -------------------------------------------------------------------------------
let journalSeq = 0
async function loadJournal () {
  const app = state.selectedApp
  const seq = ++journalSeq
  const res = await auth.fetch(`/api/why?target=${encodeURIComponent(app)}${hostQuery(state.selectedHost)}`)
  if (seq !== journalSeq) return
  const body = await res.json()
  if (res.ok) renderJournal($('journal'), body.rows || [], app)
  else renderJournalError($('journal'), body.error?.message)
}

// ---- start ---------------------------------------------------------------------------------
let act = null
async function start () {
  state.session = await auth.session() // null: opened without the token
  if (!state.session) return setConn(false, 'no token: open the address `xpm web` printed (…/#token=…)')
  state.fleet = Array.isArray(state.session.hosts)
  if (state.fleet) {
    document.body.classList.add('fleet')
    state.sort = { key: 'host', desc: false }
  }
  makeTable()
  reportShown([])
  ;({ act } = wireActions({ state, v, $, onDone: () => loadJournal() }))
  if (state.session.readOnly) {
    $('read-only').hidden = false
    for (const b of document.querySelectorAll('#actions button')) {
      b.disabled = true
      b.title = 'xpm web runs with --read-only'
    }
  }
  charts = new Charts()
  connectEvents()
  setInterval(() => { if (!document.hidden) table.schedule() }, 1000) // uptimes tick between frames
}

// the page's state, for the browser tests (test/integration/web*.test.js) and a curious console
window.xpmWeb = { state, get charts () { return charts }, select, act: (...args) => act(...args) }
start()
