'use strict'

// Per-process metrics in the daemon: CPU and memory of every tracked pid sampled from the OS on
// one schedule, merged with what each worker's agent reports, plus a short history per process.
// CPU% is always "since this pid's previous sample", so every reader sees the same figure.
const { EventEmitter } = require('node:events')
const { performance } = require('node:perf_hooks')
const { createProcSampler, cpuPercent } = require('./proc-sampler')
const { History } = require('./history')
const { agentMetrics } = require('./agent-message')

function round2 (value) {
  return Math.round(value * 100) / 100
}

class Metrics extends EventEmitter {
  constructor ({ intervalMs = 1000, historySize = 120, sampler = createProcSampler(), now = () => performance.now(), clock = Date.now } = {}) {
    super()
    this.intervalMs = intervalMs
    this.historySize = historySize
    this.sampler = sampler
    this.now = now
    this.clock = clock
    this.states = new Map()
    this.timer = null
    this.running = false
  }

  // A new pid for a known id (a restart) keeps the history but starts CPU and agent data afresh.
  track (id, pid) {
    const old = this.states.get(id)
    if (old && old.pid === pid) return
    this.states.set(id, { pid, prev: null, os: null, agent: null, history: old ? old.history : new History(this.historySize) })
  }

  untrack (id) {
    this.states.delete(id)
  }

  // True when `msg` is an agent metrics report (consumed here); false for anything else, such as
  // the app's own messages or other agent messages.
  onAgentMessage (id, msg) {
    const data = agentMetrics(msg)
    if (data === undefined) return false
    const state = this.states.get(id)
    if (state && data) state.agent = { ...data, at: this.clock() }
    return true
  }

  latest (id) {
    const state = this.states.get(id)
    return state ? merge(state) : null
  }

  history (id) {
    const state = this.states.get(id)
    return state ? state.history.toArray() : []
  }

  snapshot () {
    const out = new Map()
    for (const [id, state] of this.states) {
      const point = merge(state)
      if (point) out.set(id, point)
    }
    return out
  }

  start () {
    if (this.timer) return
    this.timer = setInterval(() => {
      this.tick().catch((err) => {
        if (this.listenerCount('error') > 0) this.emit('error', err)
        else process.emitWarning(err)
      })
    }, this.intervalMs)
    this.timer.unref()
  }

  stop () {
    clearInterval(this.timer)
    this.timer = null
  }

  // One sampling round over every tracked pid, concurrently. A round still running when the next
  // is due makes that one a no-op (returns false) instead of piling reads up.
  async tick () {
    if (this.running) return false
    this.running = true
    try {
      const round = [...this.states]
      await Promise.all(round.map(([id, state]) => this.sampleOne(id, state)))
      for (const [id, state] of round) {
        if (this.states.get(id) === state && state.os) state.history.push(merge(state))
      }
    } finally {
      this.running = false
    }
    this.emit('sample', this.snapshot())
    return true
  }

  async sampleOne (id, state) {
    let sample
    try {
      sample = await this.sampler.sample(state.pid)
    } catch {
      return // an unreadable pid this round; the process' exit is reported elsewhere
    }
    if (!sample || this.states.get(id) !== state) return
    const t = this.now()
    let cpu = 0
    if (sample.cpu !== undefined) {
      cpu = sample.cpu
    } else if (state.prev && state.prev.startTime === sample.startTime) {
      cpu = cpuPercent(state.prev.ticks, sample.ticks, t - state.prev.t, this.sampler.clkTck)
    }
    state.prev = { ticks: sample.ticks, startTime: sample.startTime, t }
    state.os = { cpu: round2(cpu), memory: sample.rss, at: this.clock() }
  }
}

const EMPTY_AGENT = { heapUsed: null, heapTotal: null, rss: null, elP50: null, elP95: null, elP99: null, elMax: null, elu: null }

function merge ({ os, agent }) {
  if (!os && !agent) return null
  const a = agent || EMPTY_AGENT
  return {
    cpu: os ? os.cpu : 0,
    memory: os ? os.memory : a.rss,
    heapUsed: a.heapUsed,
    heapTotal: a.heapTotal,
    rss: a.rss,
    elP50: a.elP50,
    elP95: a.elP95,
    elP99: a.elP99,
    elMax: a.elMax,
    elu: a.elu,
    at: Math.max(os ? os.at : 0, agent ? agent.at : 0)
  }
}

function createMetrics (options) {
  return new Metrics(options)
}

module.exports = { createMetrics, Metrics }
