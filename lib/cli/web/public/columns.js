// The process table's columns (what each cell says of a row array, as `xpm list` says it) and
// which rows look crash-looping: a restart count seen rising twice within CRASH_WINDOW_MS, or
// CRASH_RESTARTS restarts and less than CRASH_UPTIME_MS up (a page opened during the loop).
// Across hosts a row also has its host (state.col.host): a host column first, a row's key is
// `<host>/<id>`, and the rows of a host that cannot be reached read `unreachable`.
import { formatBytes, formatDuration, formatUptime } from './quantity.js'

const CRASH_WINDOW_MS = 120000
const CRASH_RESTARTS = 5
const CRASH_UPTIME_MS = 60000

// a row's key in the page's map: its id, or across hosts `<host>/<id>`
const keyOf = (host, id) => (host == null ? id : `${host}/${id}`)

// state: the page's { col, receivedAt, fleet, unreachable(host) }; now: () → ms (a clock)
function makeColumns (state, now = Date.now) {
  const v = (row, name) => row[state.col[name]]
  const key = (row) => keyOf(v(row, 'host'), v(row, 'id'))
  const cut = (row) => v(row, 'host') != null && state.unreachable?.(v(row, 'host'))
  const shownStatus = (row) => cut(row) ? 'unreachable' : v(row, 'status') === 'online' && v(row, 'ready') === false ? 'not ready' : String(v(row, 'status') ?? '-')
  // uptime as of now: the frame's figure plus the time since it arrived (unknown for a host gone)
  const uptimeOf = (row) => {
    if (cut(row)) return null
    const up = v(row, 'uptime')
    return typeof up === 'number' && v(row, 'status') === 'online' ? up + (now() - state.receivedAt) : up
  }
  const cpuText = (cpu) => typeof cpu === 'number' ? `${cpu.toFixed(cpu < 10 ? 1 : 0)}%` : '-'

  const rises = new Map() // id → { restarts, at: [times the count rose] }
  // every row the page receives passes here
  const observe = (row) => {
    const id = key(row)
    const restarts = v(row, 'restarts') ?? 0
    const seen = rises.get(id)
    if (!seen) return rises.set(id, { restarts, at: [] })
    if (restarts > seen.restarts) seen.at = [...seen.at.filter((t) => now() - t < CRASH_WINDOW_MS), now()]
    seen.restarts = restarts
  }
  const crashLooping = (row) => {
    const recent = (rises.get(key(row))?.at || []).filter((t) => now() - t < CRASH_WINDOW_MS).length
    const up = uptimeOf(row)
    return recent >= 2 || ((v(row, 'restarts') ?? 0) >= CRASH_RESTARTS && (typeof up !== 'number' || up < CRASH_UPTIME_MS))
  }
  const forget = (id) => rises.delete(id)

  const COLUMNS = [
    ...(state.fleet ? [{ key: 'host', label: 'host', text: (r) => String(v(r, 'host')) }] : []),
    { key: 'id', label: 'id', num: true, text: (r) => String(v(r, 'id')) },
    { key: 'name', label: 'name', text: (r) => (v(r, 'namespace') && v(r, 'namespace') !== 'default' ? `${v(r, 'namespace')}/` : '') + v(r, 'name') + (v(r, 'instance') != null ? ` [${v(r, 'instance')}]` : '') },
    { key: 'mode', label: 'mode', text: (r) => String(v(r, 'mode') ?? '-') },
    { key: 'status', label: 'status', text: shownStatus, cls: (r) => 'st-' + shownStatus(r).replace(/\s+/g, '-') },
    { key: 'ready', label: 'ready', text: (r) => v(r, 'ready') === true ? 'yes' : v(r, 'ready') === false ? 'no' : '-' },
    { key: 'restarts', label: '↺', num: true, text: (r) => String(v(r, 'restarts') ?? 0) },
    { key: 'uptime', label: 'uptime', num: true, text: (r) => formatUptime(uptimeOf(r)) },
    { key: 'cpu', label: 'cpu', num: true, text: (r) => cpuText(v(r, 'cpu')) },
    { key: 'memory', label: 'memory', num: true, text: (r) => formatBytes(v(r, 'memory')) },
    { key: 'heapUsed', label: 'heap', num: true, text: (r) => formatBytes(v(r, 'heapUsed')) },
    { key: 'elP99', label: 'loop p99', num: true, text: (r) => formatDuration(v(r, 'elP99')) }
  ]
  const rowClass = (row) => cut(row) ? 'unreachable' : crashLooping(row) ? 'crashloop' : ''
  return { v, key, shownStatus, cpuText, COLUMNS, observe, forget, crashLooping, rowClass }
}

export { makeColumns, keyOf }
