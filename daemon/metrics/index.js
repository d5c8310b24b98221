'use strict'

// Per-process metrics in the daemon: CPU and memory of every tracked pid sampled from the OS,
// merged with what each worker's agent reports, plus a short history per process.
// CPU% is always "since this pid's previous sample", so every reader sees the same figure.
//
// Cost follows attention. Sampling runs at the full rate (FULL_MS) only while someone watches:
// a subscriber (`xpm monit`, watch()), or a lease of LEASE_MS that every `list`/`show` takes
// (touch(); the agents only for a request returning their figures, attention.js); and, always,
// for the processes with a memory limit (the policy checks them on every 'sample'). Otherwise
// every process is sampled once per SLOW_MS, so that `list` still has a CPU baseline. A `list`
// or `show` finding a figure older than FRESH_MS samples it on demand first (fresh()). Agents
// report on the same schedule (agent-schedule.js). Reads of /proc go CONCURRENCY at a time.
const { EventEmitter } = require('node:events')
const { performance } = require('node:perf_hooks')
const { createProcSampler } = require('./proc-sampler')
const { PointHistory, recentHistory } = require('./history')
const { agentMetrics } = require('./agent-message')
const { sampleRound, merge, EMPTY_AGENT } = require('./sample-round')
const { Attention } = require('./attention')

const { agentInterval, tellAgent, SCHEDULE_CMD } = require('./agent-schedule')

const FULL_MS = 1000
const SLOW_MS = 30000
const LEASE_MS = 10000
const FRESH_MS = 2000
const CONCURRENCY = 8
const HISTORY_POINTS = 120 // per process: two minutes at the full rate, 7.5 KiB
const HISTORY_BUDGET = 4 * 1024 * 1024 // all processes together (fewer points each past ~550)

class Metrics extends EventEmitter {
  constructor ({
    fullMs = FULL_MS, slowMs = SLOW_MS, leaseMs = LEASE_MS, freshMs = FRESH_MS,
    historySize = HISTORY_POINTS, historyBudget = HISTORY_BUDGET, concurrency = CONCURRENCY,
    sampler = createProcSampler(), now = () => performance.now(), clock = Date.now,
    timers = { setTimeout, clearTimeout }
  } = {}) {
    super()
    Object.assign(this, { fullMs, slowMs, leaseMs, freshMs, historySize, historyBudget, concurrency, sampler, now, clock, timers })
    this.states = new Map()
    this.limited = 0 // tracked processes with a memory limit
    this.attention = new Attention({ slowMs, fullMs, leaseMs, now, timers, onChange: () => this.attentionChanged() })
    this.started = false
    this.timer = null
    this.timerDue = Infinity
    this.lastRoundAt = -Infinity
    this.lastAllAt = -Infinity
    this.inflight = null // the sampling under way (a round or an on-demand sample)
    this.rounds = 0
    this.reads = 0
  }

  // ---- processes ----------------------------------------------------------------------------

  // limited: sample it at the full rate always (max_memory_restart). send(msg): how to reach its
  // agent, null when it has none. steady: its agent reports at the full rate always, and every
  // interval even when nothing changed (the watchdog: max_event_loop_delay, max_heap). A new pid
  // for a known id (a restart) keeps the history but starts CPU and agent data afresh.
  track (id, pid, { limited = false, send = null, steady = false } = {}) {
    const old = this.states.get(id)
    if (old && old.pid === pid) {
      this.setLimited(old, limited)
      if ((send && !old.send) || old.steady !== steady) {
        old.send = old.send || send
        old.steady = steady
        this.tellAgent(old)
      }
      return
    }
    if (old) {
      this.setLimited(old, false)
      this.sampler.forget?.(old.pid)
    }
    const state = { id, pid, prev: null, os: null, agent: null, sampledAt: -Infinity, limited: false, steady, send, told: null, history: old ? old.history : new PointHistory() }
    this.states.set(id, state)
    this.setLimited(state, limited)
    this.tellAgent(state)
  }

  untrack (id) {
    const state = this.states.get(id)
    if (!state) return
    this.setLimited(state, false)
    this.states.delete(id)
    this.sampler.forget?.(state.pid)
  }

  setLimited (state, limited) {
    if (state.limited === limited) return
    state.limited = limited
    this.limited += limited ? 1 : -1
    if (limited) this.schedule()
  }

  // True when `msg` is an agent metrics report (consumed here); false for anything else, such as
  // the app's own messages or other agent messages. A report carries only the figures that
  // changed since the agent's previous one.
  onAgentMessage (id, msg) {
    const data = agentMetrics(msg)
    if (data === undefined) return false
    const state = this.states.get(id)
    if (state && data) state.agent = { ...(state.agent || EMPTY_AGENT), ...data, at: this.clock() }
    return true
  }

  latest (id) {
    const state = this.states.get(id)
    return state ? merge(state) : null
  }

  // CPU time the tracked process has used (user + system, in seconds) at its last sample; null
  // when not known (not sampled yet, or a platform whose sampler gives no tick count).
  cpuSeconds (id) {
    const ticks = this.states.get(id)?.prev?.ticks
    return typeof ticks === 'number' ? ticks / (this.sampler.clkTck || 100) : null
  }

  // Oldest first. since: an `at` (epoch ms); max: the newest n points; fields: which figures.
  history (id, options) {
    const state = this.states.get(id)
    return state ? state.history.toArray(options) : []
  }

  // The recent history of many processes at once, for a dashboard's first frame (history.js).
  recent (ids, options) {
    return recentHistory(this, ids, options)
  }

  snapshot () {
    const out = new Map()
    for (const [id, state] of this.states) {
      const point = merge(state)
      if (point) out.set(id, point)
    }
    return out
  }

  // ---- attention ----------------------------------------------------------------------------

  // Full-rate rounds are needed: someone watches some or all processes.
  get watched () {
    return this.attention.any
  }

  // A subscriber of `ids` (null: every process), at the full rate until the returned release()
  // is called (once is enough); release.update(ids) changes what it watches (attention.js).
  watch (ids = null) {
    return this.attention.watch(ids)
  }

  // Someone looked (`list`, `show`): full-rate sampling for the next leaseMs; agents: the
  // request returns their figures, so the agents of `ids` (null: all) follow (attention.js).
  touch (ids = null, { agents = false } = {}) {
    this.attention.touch(ids, { agents })
  }

  // A Prometheus scrape (fresh() with lease: false): its pace sets the agents' (attention.js).
  scraped () {
    this.attention.scraped()
  }

  attentionChanged () {
    for (const state of this.states.values()) this.tellAgent(state)
    this.schedule()
  }

  agentInterval (id = null) {
    return agentInterval(this, id)
  }

  tellAgent (state) {
    tellAgent(this, state)
  }

  // ---- schedule -----------------------------------------------------------------------------

  start () {
    if (this.started) return
    this.started = true
    if (this.lastAllAt === -Infinity) this.lastAllAt = this.now()
    this.schedule()
  }

  stop () {
    this.started = false
    this.timers.clearTimeout(this.timer)
    this.attention.stop()
    this.timer = null
    this.timerDue = Infinity
  }

  // When the next round is due: one full interval after the last round while anything needs the
  // full rate, else one slow interval after the last round over every process.
  nextDue () {
    if (this.watched || this.limited > 0) return this.lastRoundAt + this.fullMs
    return this.lastAllAt + this.slowMs
  }

  // Arms the round timer for the next due time; a timer already due earlier stays.
  schedule () {
    if (!this.started) return
    const due = this.nextDue()
    if (this.timer && this.timerDue <= due) return
    this.timers.clearTimeout(this.timer)
    this.timerDue = due
    this.timer = this.timers.setTimeout(() => {
      this.timer = null
      this.timerDue = Infinity
      this.scheduledRound().catch((err) => {
        if (this.listenerCount('error') > 0) this.emit('error', err)
        else process.emitWarning(err)
      }).finally(() => this.schedule())
    }, Math.max(0, due - this.now()))
    this.timer.unref?.()
  }

  async scheduledRound () {
    while (this.inflight) await this.inflight.catch(() => {})
    if (this.started) await this.tick()
  }

  // One sampling round: every process while all are watched or when the slow round is due, else
  // those watched by id and those with a memory limit. A round still running when the next is
  // due makes that one a no-op (returns false) instead of piling reads up.
  async tick () {
    if (this.inflight) return false
    const t = this.now()
    const all = this.attention.all || t - this.lastAllAt >= this.slowMs - this.fullMs / 2
    this.lastRoundAt = t
    if (all) this.lastAllAt = t
    // A process read in the last half interval (on demand) is not read again so soon.
    const round = []
    for (const entry of this.states) {
      const wanted = all || entry[1].limited || this.attention.covers(entry[0])
      if (wanted && t - entry[1].sampledAt >= this.fullMs / 2) round.push(entry)
    }
    this.rounds++
    await this.exclusive(() => this.sampleAll(round, { history: true }))
    return true
  }

  // On demand, for `list` and `show`: samples the given ids (all when null) whose last sample is
  // older than freshMs, then resolves. Also takes the attention lease, unless `lease: false` (a
  // Prometheus scrape: periodic, not someone watching; its pace sets the agents', scraped()).
  // A dashboard watching some ids passes scrape: false too (its watch() is its attention).
  // agents: false when the reply has no agent figures (the `list` table; attention.js).
  async fresh (ids = null, { lease = true, scrape = true, agents = true } = {}) {
    if (lease) this.touch(ids, { agents })
    else if (scrape) this.scraped()
    while (this.inflight) await this.inflight.catch(() => {})
    const t = this.now()
    const stale = []
    const consider = (id, state) => { if (state && t - state.sampledAt >= this.freshMs) stale.push([id, state]) }
    if (ids === null) for (const [id, state] of this.states) consider(id, state)
    else for (const id of ids) consider(id, this.states.get(id))
    if (stale.length) await this.exclusive(() => this.sampleAll(stale, { history: false }))
  }

  async exclusive (fn) {
    this.inflight = fn()
    try {
      await this.inflight
    } finally {
      this.inflight = null
    }
  }

  // Samples [id, state] pairs (sample-round.js), then emits 'sample' with a Map of id → latest
  // point of those sampled.
  async sampleAll (entries, { history }) {
    const out = await sampleRound(this, entries, { history })
    if (out) this.emit('sample', out)
  }

  // What the schedule is doing, for tests and diagnostics.
  stats () {
    let historyBytes = 0
    for (const state of this.states.values()) historyBytes += state.history.bytes
    return {
      tracked: this.states.size,
      limited: this.limited,
      watchers: this.attention.watchers,
      watched: this.watched,
      watchedIds: this.attention.all ? null : this.attention.idCounts.size,
      agentIntervalMs: this.agentInterval(),
      scrapeMs: this.attention.scrapeMs,
      nextRoundInMs: this.timer ? Math.max(0, this.timerDue - this.now()) : null,
      rounds: this.rounds,
      reads: this.reads,
      historyBytes
    }
  }
}

function createMetrics (options) {
  return new Metrics(options)
}

module.exports = { createMetrics, Metrics, FULL_MS, SLOW_MS, LEASE_MS, FRESH_MS, CONCURRENCY, HISTORY_POINTS, HISTORY_BUDGET, SCHEDULE_CMD }
