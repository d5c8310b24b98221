// The page's credential and its requests. The printed address carries the token in its fragment
// (#token=…), which the browser never sends to any server: it is moved into this tab's
// sessionStorage (kept apart by scheme, host and port, unlike cookies, which go to every port of a
// host) and out of the address bar and the history. Requests send it as `Authorization: Bearer`;
// an event stream (EventSource cannot set headers) gets a one-time ticket in its URL instead,
// worth one stream for 30 s (lib/cli/web/tickets.js).
/* global EventSource */
const KEY = 'xpm-web-token'
const m = /[#&]token=([^&]+)/.exec(window.location.hash)
if (m) {
  // a fragment another page made up (`%E0%A4%A`) must not stop the page's scripts
  try { sessionStorage.setItem(KEY, decodeURIComponent(m[1])) } catch {}
  window.history.replaceState(null, '', window.location.pathname + window.location.search)
}
let csrf = null

function authFetch (url, options = {}) {
  const headers = { ...options.headers, authorization: `Bearer ${sessionStorage.getItem(KEY)}` }
  return fetch(url, { ...options, credentials: 'omit', headers })
}

// → { csrf, readOnly, version }, or null when the server refuses this tab's token (or it has none)
async function session () {
  const res = await authFetch('/api/session')
  if (!res.ok) return null
  const value = await res.json()
  csrf = value.csrf
  return value
}

// a state-changing request: JSON, with the CSRF header the server checks
function post (url, value) {
  return authFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-xpm-csrf': csrf }, body: JSON.stringify(value) })
}

// Used as an EventSource: each connection opens with a fresh ticket, and 3 s after a stream ends
// (the daemon went away, the server restarted) a new one does, since EventSource itself would
// retry the spent URL. The listeners carry over to each connection.
class TicketedSource {
  constructor (path) {
    Object.assign(this, { path, listeners: [], source: null, closed: false, timer: null })
    this.open()
  }

  addEventListener (type, fn) {
    this.listeners.push([type, fn])
    if (this.source) this.source.addEventListener(type, fn)
  }

  async open () {
    let url = null
    try {
      const res = await authFetch('/api/ticket')
      if (res.ok) url = `${this.path}${this.path.includes('?') ? '&' : '?'}ticket=${encodeURIComponent((await res.json()).ticket)}`
    } catch {}
    if (this.closed) return
    if (url === null) return this.failed()
    const source = this.source = new EventSource(url)
    for (const [type, fn] of this.listeners) source.addEventListener(type, fn)
    source.addEventListener('error', () => {
      source.close()
      if (this.source === source) this.retry()
    })
  }

  failed () {
    for (const [type, fn] of this.listeners) if (type === 'error') fn(new Event('error'))
    this.retry()
  }

  retry () {
    this.source = null
    if (!this.closed) this.timer = setTimeout(() => this.open(), 3000)
  }

  close () {
    this.closed = true
    clearTimeout(this.timer)
    if (this.source) this.source.close()
  }
}

export { authFetch as fetch, session, post, TicketedSource }
