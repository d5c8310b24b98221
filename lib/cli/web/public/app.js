// The xpm web page, no framework: the live process table (server-sent events from /api/events;
// table.js, its rows in view told by shown.js), the selected process's charts (charts.js), live log
// (/api/logs, log-panel.js), restart journal (/api/why), actions (POST /api/action, line by line).
/* global requestAnimationFrame */
import { formatBytes } from './quantity.js'
import * as auth from './auth.js'
import { LogPanel } from './log-panel.js'
import { makeColumns } from './columns.js'
import { ShownReporter } from './shown.js'
import { VirtualTable } from './table.js'
import { renderJournal, renderJournalError } from './journal.js'
import { Charts } from './charts.js'

const $ = (id) => document.getElementById(id)
let charts = null // made once the page's layout is known (their width)
const logs = new LogPanel({ box: $('logs'), note: $('log-note'), pause: $('pause'), filter: $('log-filter') })

const state = {
  session: null,
  col: null, // column name → index in a row array
  rows: new Map(), // id → row array
  at: 0, // the server time of the last frame
  receivedAt: 0,
  sort: { key: 'id', desc: false },
  filter: '',
  selectedId: null,
  selectedApp: null,
  lastRestarts: null
}

const { v, shownStatus, cpuText, COLUMNS, observe, forget, rowClass } = makeColumns(state)

const shown = new ShownReporter({ csrf: () => state.session.csrf })
const table = new VirtualTable({
  viewport: $('viewport'), sizer: $('sizer'), rows: $('rows'), columns: COLUMNS, rowClass, onSelect: select, onShown: (ids) => shown.report(ids)
})

// ---- header, sorting, filter -------------------------------------------------------------
table.renderHead($('thead'))
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
  const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x - y
  return (state.sort.desc ? -order : order) || v(a, 'id') - v(b, 'id')
}

function matches (row) {
  if (!state.filter) return true
  const hay = `${v(row, 'id')} ${v(row, 'name')} ${v(row, 'namespace') ?? ''} ${shownStatus(row)} ${v(row, 'mode') ?? ''}`.toLowerCase()
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
  for (const row of state.rows.values()) {
    if (v(row, 'status') === 'online') online++
    cpu += v(row, 'cpu') || 0
    memory += v(row, 'memory') || 0
  }
  const total = state.rows.size
  $('summary').textContent = `${total} process${total === 1 ? '' : 'es'}, ${online} online · cpu ${cpuText(cpu)} · memory ${formatBytes(memory)}` +
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

function connectEvents () {
  shown.setSink(null) // its stream closes: nothing more is told for it (its successor's full frame names the next)
  if (source) source.close()
  source = new auth.TicketedSource(state.selectedApp === null ? '/api/events' : `/api/events?logs=${encodeURIComponent(state.selectedApp)}`)
  const app = state.selectedApp
  source.addEventListener('lines', (e) => logs.onBatch(JSON.parse(e.data), app))
  source.addEventListener('failed', (e) => logs.failed(JSON.parse(e.data).message))
  source.addEventListener('open', () => setConn(true))
  source.addEventListener('error', () => setConn(false))
  source.addEventListener('gone', (e) => setConn(false, JSON.parse(e.data).message))
  source.addEventListener('full', (e) => {
    const frame = JSON.parse(e.data)
    state.col = Object.fromEntries(frame.columns.map((name, i) => [name, i]))
    state.rows = new Map(frame.rows.map((r) => [r[0], r]))
    for (const row of frame.rows) observe(row)
    shown.setSink(frame.sink)
    state.at = frame.at
    state.receivedAt = Date.now()
    if (state.selectedId === null && frame.rows.length) select(Math.min(...frame.rows.map((r) => r[0])))
    else if (state.selectedId !== null) loadHistory(state.selectedId)
    refreshView()
  })
  source.addEventListener('diff', (e) => {
    if (!state.col) return
    const frame = JSON.parse(e.data)
    for (const row of frame.rows) {
      state.rows.set(row[0], row)
      observe(row)
    }
    for (const id of frame.removed) {
      state.rows.delete(id)
      forget(id)
    }
    state.at = frame.at
    state.receivedAt = Date.now()
    const sel = state.rows.get(state.selectedId)
    if (sel) {
      charts.add({ at: frame.at, cpu: v(sel, 'cpu'), memory: v(sel, 'memory'), heapUsed: v(sel, 'heapUsed'), elP99: v(sel, 'elP99') })
      const restarts = v(sel, 'restarts')
      if (state.lastRestarts !== null && restarts !== state.lastRestarts) loadJournal()
      state.lastRestarts = restarts
      setTitle(sel)
    }
    refreshView()
  })
}

function setConn (up, message) {
  $('conn').textContent = up ? 'live' : message || 'reconnecting…'
  $('conn').classList.toggle('down', !up)
}

// ---- selection, keyboard -------------------------------------------------------------------
function titleOf (row) {
  return `${v(row, 'name')}${v(row, 'instance') != null ? ` [${v(row, 'instance')}]` : ''} · id ${v(row, 'id')} · pid ${v(row, 'pid') ?? '-'} · ${shownStatus(row)}`
}

function setTitle (row) {
  $('sel-title').textContent = $('sel-title').title = titleOf(row)
}

function select (id) {
  const row = state.rows.get(id)
  if (!row) return
  const appChanged = v(row, 'name') !== state.selectedApp
  state.selectedId = id
  state.selectedApp = v(row, 'name')
  state.lastRestarts = v(row, 'restarts')
  table.select(id)
  setTitle(row)
  $('inst-label').textContent = `process ${id}`
  loadHistory(id)
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
  const i = list.findIndex((r) => r[0] === state.selectedId)
  const next = list[Math.max(0, Math.min(list.length - 1, i + (e.key === 'ArrowDown' || e.key === 'j' ? 1 : -1)))]
  if (next) {
    select(next[0])
    table.reveal(next[0])
  }
})

async function loadHistory (id) {
  const res = await auth.fetch(`/api/history?id=${id}`)
  if (!res.ok || id !== state.selectedId) return
  charts.load(await res.json())
}

// ---- journal -------------------------------------------------------------------------------
let journalSeq = 0
async function loadJournal () {
  const app = state.selectedApp
  const seq = ++journalSeq
  const res = await auth.fetch(`/api/why?target=${encodeURIComponent(app)}`)
  if (seq !== journalSeq) return
  const body = await res.json()
  if (res.ok) renderJournal($('journal'), body.rows || [], app)
  else renderJournalError($('journal'), body.error?.message)
}

// ---- actions -------------------------------------------------------------------------------
function out (text, cls) {
  const line = document.createElement('div')
  if (cls) line.className = cls
  line.textContent = text
  $('action-output').appendChild(line)
  $('action-output').scrollTop = $('action-output').scrollHeight
}

async function act (action, target) {
  const buttons = document.querySelectorAll('#actions button')
  for (const b of buttons) b.disabled = true
  out(`$ xpm ${action} ${target}`)
  try {
    const res = await auth.post('/api/action', { action, target })
    if (!res.ok) {
      const body = await res.json().catch(() => ({}))
      out(`xpm: ${body.error?.message || res.statusText}${body.error?.code ? ` [${body.error.code}]` : ''}`, 'fail')
      return
    }
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let buffered = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffered += decoder.decode(value, { stream: true })
      let nl
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const msg = JSON.parse(buffered.slice(0, nl))
        buffered = buffered.slice(nl + 1)
        if (msg.type === 'step') out(msg.text)
        else if (msg.type === 'done') out(msg.ok ? msg.message : `xpm: ${msg.message} [${msg.code}]`, msg.ok ? 'ok' : 'fail')
      }
    }
  } catch (err) {
    out(`xpm web: ${err.message}`, 'fail')
  } finally {
    for (const b of buttons) b.disabled = state.session.readOnly
    loadJournal()
  }
}

$('actions').addEventListener('click', (e) => {
  const b = e.target.closest('button')
  if (!b || state.selectedId === null) return
  if (b.dataset.scope === 'app' && b.dataset.action === 'stop' && !confirmStop(state.selectedApp)) return
  act(b.dataset.action, b.dataset.scope === 'app' ? state.selectedApp : state.selectedId)
})

// stopping a whole app takes every instance off: asked first, with how many
function confirmStop (app) {
  let n = 0
  for (const row of state.rows.values()) if (v(row, 'name') === app && v(row, 'status') !== 'stopped') n++
  return window.confirm(`Stop ${app}: all ${n} running process${n === 1 ? '' : 'es'} of it?`)
}

// ---- start ---------------------------------------------------------------------------------
async function start () {
  state.session = await auth.session() // null: opened without the token
  if (!state.session) return setConn(false, 'no token: open the address `xpm web` printed (…/#token=…)')
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
window.xpmWeb = { state, get charts () { return charts }, select, act }
start()
