// Tells the server which rows this page has in view and which one is selected (POST /api/watch),
// so that the daemon samples those every second and sends the others as summary rows, only when
// they change (lib/cli/web/shown-ids.js). One request at a time, the latest set wins; a new
// stream (its `full` frame names it) is told again. Across hosts the rows are told per host
// ({ hosts: { <label>: ids } }).
import * as auth from './auth.js'

class ShownReporter {
  // csrf: () → the session's CSRF token
  constructor ({ csrf }) {
    this.csrf = csrf
    this.sink = null
    this.shown = { ids: [] }
    this.sent = null
    this.busy = false
  }

  setSink (sink) {
    this.sink = sink
    this.flush()
  }

  // shown: { ids } or { hosts }
  report (shown) {
    this.shown = shown
    this.flush()
  }

  async flush () {
    if (this.busy || typeof this.sink !== 'number') return
    const key = `${this.sink}:${JSON.stringify(this.shown)}`
    if (key === this.sent) return
    this.sent = key
    this.busy = true
    try {
      await auth.fetch('/api/watch', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-xpm-csrf': this.csrf() },
        body: JSON.stringify({ sink: this.sink, ...this.shown })
      })
    } catch {} finally { // a stream gone: the next one's full frame sends the rows again
      this.busy = false
      this.flush()
    }
  }
}

export { ShownReporter }
