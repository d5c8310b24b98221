'use strict'

// The attention half of daemon/metrics (index.js, which extends it): who is looking sets the
// sampling rate. A subscriber (watch()) or a lease that every `list`/`show` takes (touch()) means
// the full rate; Prometheus scrapes (scraped()) set the agents' pace while they keep coming;
// otherwise the slow rate. Every change is told to the agents (tellAgent) and re-arms the
// round timer (schedule(), the subclass's). Reads the subclass's fullMs, slowMs, leaseMs, now,
// timers and states.
const { EventEmitter } = require('node:events')

const SCHEDULE_CMD = 'NODE_XPM_METRICS' // see lib/agent/metrics-schedule.js

class MetricsAttention extends EventEmitter {
  constructor ({ slowMs }) {
    super()
    this.watchers = 0
    this.leaseUntil = -Infinity
    this.leaseTimer = null
    this.agentMs = slowMs // the interval last sent to the agents
    this.scrapeMs = null // the pace of Prometheus scrapes while they keep coming
    this.lastScrapeAt = -Infinity
    this.scrapeUntil = -Infinity
    this.scrapeTimer = null
  }

  get watched () {
    return this.watchers > 0 || this.now() < this.leaseUntil
  }

  // A subscriber: full rate until the returned release() is called (once is enough).
  watch () {
    this.watchers++
    this.attentionChanged()
    let released = false
    return () => {
      if (released) return
      released = true
      this.watchers--
      this.attentionChanged()
    }
  }

  // Someone looked (`list`, `show`): full rate for the next leaseMs.
  touch () {
    this.leaseUntil = this.now() + this.leaseMs
    if (!this.leaseTimer) this.armLease(this.leaseMs)
    this.attentionChanged()
  }

  // A Prometheus scrape (fresh() with lease: false). From the second one on, the gap between
  // two scrapes is their pace; scrapes further apart than the slow interval change nothing.
  scraped () {
    const t = this.now()
    const gap = t - this.lastScrapeAt
    this.lastScrapeAt = t
    if (!(gap < this.slowMs)) return
    this.scrapeMs = Math.max(this.fullMs, Math.round(gap))
    this.scrapeUntil = t + 2 * this.scrapeMs
    this.timers.clearTimeout(this.scrapeTimer)
    this.scrapeTimer = this.timers.setTimeout(() => {
      this.scrapeTimer = null
      this.scrapeMs = null
      this.attentionChanged()
    }, 2 * this.scrapeMs)
    this.scrapeTimer.unref?.()
    this.attentionChanged()
  }

  armLease (ms) {
    this.leaseTimer = this.timers.setTimeout(() => {
      this.leaseTimer = null
      const left = this.leaseUntil - this.now()
      if (left > 0) this.armLease(left)
      else this.attentionChanged()
    }, ms)
    this.leaseTimer.unref?.()
  }

  attentionChanged () {
    const ms = this.watched ? this.fullMs : this.scrapeMs ?? this.slowMs
    if (ms !== this.agentMs) {
      this.agentMs = ms
      for (const state of this.states.values()) this.tellAgent(state)
    }
    this.schedule()
  }

  agentInterval () {
    return this.agentMs
  }

  tellAgent (state) {
    if (!state.send) return
    try {
      state.send(state.steady ? { cmd: SCHEDULE_CMD, intervalMs: this.fullMs, heartbeat: true } : { cmd: SCHEDULE_CMD, intervalMs: this.agentInterval() })
    } catch {} // a closing channel: its exit is reported elsewhere
  }
}

module.exports = { MetricsAttention, SCHEDULE_CMD }
