'use strict'

// The dashboard across hosts (`xpm web --hosts`, docs/fleet.md): one Hub (hub.js) per host, each
// with its own subscription over that host's connection and its own bounds, and every page
// attached to all of them through a sink per host that adds the host's label to what it passes
// on. A host whose connection drops, or that cannot be reached, is told to the pages as a `host`
// event { label, state: 'unreachable', message }, never as its processes gone: the page keeps
// its rows and marks them. While a page is open such a host is tried again (RETRY_MIN_MS, doubling
// up to RETRY_MAX_MS); its next full frame replaces its rows and says `state: 'up'`.
// The server calls it as it calls a Hub: attach, detach, show, issued, historyOf, close. The
// hosts share one budget of chart points (a hub's), so memory does not grow with their number.

const { Hub, POINT_KEYS, HISTORY_BUDGET } = require('./hub')

const RETRY_MIN_MS = 1000
const RETRY_MAX_MS = 30000

class FleetHub {
  // lanes: [{ label, connect }] (commands/web.js); makeHub(connect, historyBudget): for tests
  constructor ({ lanes, timers = { setTimeout, clearTimeout }, makeHub = (connect, historyBudget) => new Hub({ connect, historyBudget }) }) {
    this.timers = timers
    this.sinks = new Set() // the pages' streams
    this.sinkSeq = 0
    this.lanes = lanes.map(({ label, connect }) => ({
      label, hub: makeHub(connect, Math.floor(HISTORY_BUDGET / lanes.length)), state: 'connecting', message: null, retryMs: RETRY_MIN_MS, timer: null, bySink: new Map(), json: null, tagged: null
    }))
  }

  get subscribed () {
    return this.lanes.some((l) => l.hub.subscribed)
  }

  // what GET /api/status shows of the ids watched: per host
  get shown () {
    return { watching: Object.fromEntries(this.lanes.map((l) => [l.label, l.hub.shown.watching])) }
  }

  lane (label) {
    return this.lanes.find((l) => l.label === label) || null
  }

  hosts () {
    return this.lanes.map(({ label, state, message }) => ({ label, state, message }))
  }

  async attach (page) {
    page.id = ++this.sinkSeq
    this.sinks.add(page)
    page.send('hosts', { sink: page.id, hosts: this.hosts() })
    await Promise.all(this.lanes.map((lane) => (lane.state === 'unreachable' && lane.timer ? null : this.join(lane, page))))
  }

  // page's sink for one host: frames tagged with the host, a host gone is not the page's end
  join (lane, page) {
    if (!this.sinks.has(page)) return
    let sink = lane.bySink.get(page)
    if (!sink) {
      sink = {
        send: (event, data, json) => {
          if (event === 'gone') return this.down(lane, data?.message)
          if (event === 'full') {
            this.up(lane)
            return page.send('full', { ...data, sink: page.id, host: lane.label })
          }
          if (event === 'diff') return page.send('diff', null, this.tag(lane, json ?? JSON.stringify(data)))
          return page.send(event, data)
        },
        buffered: () => page.buffered(),
        onDrain: (fn) => page.onDrain(fn),
        end: () => {}
      }
      lane.bySink.set(page, sink)
    }
    const shown = page.shownByHost?.[lane.label]
    // a host back: its new subscription watches what the page has in view, as before it went
    return lane.hub.attach(sink).then(() => { if (shown && lane.hub.sinks.has(sink)) lane.hub.show(sink.id, shown) })
  }

  // a frame's JSON with the host's label, made once for every page
  tag (lane, json) {
    if (lane.json !== json) {
      lane.json = json
      lane.tagged = `${json.slice(0, -1)},"host":${JSON.stringify(lane.label)}}`
    }
    return lane.tagged
  }

  detach (page) {
    this.sinks.delete(page)
    for (const lane of this.lanes) {
      const sink = lane.bySink.get(page)
      lane.bySink.delete(page)
      if (sink) lane.hub.detach(sink)
      if (this.sinks.size === 0) {
        this.timers.clearTimeout(lane.timer)
        lane.timer = null
      }
    }
  }

  tell (lane) {
    const data = { label: lane.label, state: lane.state, message: lane.message }
    for (const page of this.sinks) page.send('host', data)
  }

  up (lane) {
    lane.retryMs = RETRY_MIN_MS
    if (lane.state === 'up') return
    lane.state = 'up'
    lane.message = null
    this.tell(lane)
  }

  down (lane, message) {
    const changed = lane.state !== 'unreachable' || lane.message !== (message || null)
    lane.state = 'unreachable'
    lane.message = message || null
    if (changed) this.tell(lane)
    if (lane.timer || this.sinks.size === 0) return
    const wait = lane.retryMs
    lane.retryMs = Math.min(RETRY_MAX_MS, lane.retryMs * 2)
    lane.timer = this.timers.setTimeout(() => {
      lane.timer = null
      for (const page of this.sinks) this.join(lane, page)
    }, wait)
    lane.timer.unref?.()
  }

  // Which rows a page has in view, per host ({ label: [ids] }); false: no such page.
  show (sinkId, byHost) {
    const page = [...this.sinks].find((s) => s.id === sinkId)
    if (!page) return false
    page.shownByHost = byHost
    for (const lane of this.lanes) {
      const sink = lane.bySink.get(page)
      if (sink && lane.hub.sinks.has(sink)) lane.hub.show(sink.id, byHost[lane.label] || [])
    }
    return true
  }

  issued (sinkId) {
    return Number.isSafeInteger(sinkId) && sinkId >= 1 && sinkId <= this.sinkSeq
  }

  historyOf (id, label) {
    const lane = this.lane(label)
    return lane ? lane.hub.historyOf(id) : Object.fromEntries(POINT_KEYS.map((k) => [k, []]))
  }

  close () {
    for (const lane of this.lanes) {
      this.timers.clearTimeout(lane.timer)
      lane.timer = null
      lane.hub.close()
    }
  }
}

module.exports = { FleetHub, RETRY_MIN_MS, RETRY_MAX_MS }
