'use strict'

// One sampling round of daemon/metrics: the pids read from the OS at most `concurrency` at a
// time (a bounded pool: the thread pool is shared with the log files), each figure merged with
// what the process's agent last reported, and the history kept within its budget.
const { mapLimited } = require('../../lib/shared/map-limited')
const { cpuPercent } = require('./proc-sampler')
const { POINT_BYTES } = require('./history')

const MIN_HISTORY_POINTS = 8

// metrics: the Metrics instance (its states, sampler, clocks, history budget). entries: [id,
// state] pairs. Resolves with a Map of id → latest point of those sampled (null for none);
// history: the points go into each process's history too.
async function sampleRound (metrics, entries, { history }) {
  if (!entries.length) return null
  await mapLimited(entries, metrics.concurrency, ([id, state]) => sampleOne(metrics, id, state))
  const out = new Map()
  const limit = history ? historyLimit(metrics) : 0
  for (const [id, state] of entries) {
    if (metrics.states.get(id) !== state) continue
    const point = merge(state)
    if (!point) continue
    out.set(id, point)
    if (history && state.os) state.history.push(point, limit)
  }
  return out
}

// Points each process may keep: historySize, fewer once the processes together would pass
// the history budget.
function historyLimit (metrics) {
  const share = Math.floor(metrics.historyBudget / POINT_BYTES / Math.max(1, metrics.states.size))
  return Math.min(metrics.historySize, Math.max(MIN_HISTORY_POINTS, share))
}

async function sampleOne (metrics, id, state) {
  let sample
  metrics.reads++
  try {
    sample = await metrics.sampler.sample(state.pid)
  } catch {
    return // an unreadable pid this round; the process' exit is reported elsewhere
  }
  if (!sample || metrics.states.get(id) !== state) return
  const t = metrics.now()
  let cpu = 0
  if (sample.cpu !== undefined) {
    cpu = sample.cpu
  } else if (state.prev && state.prev.startTime === sample.startTime) {
    cpu = cpuPercent(state.prev.ticks, sample.ticks, t - state.prev.t, metrics.sampler.clkTck)
  }
  state.prev = { ticks: sample.ticks, startTime: sample.startTime, t }
  state.sampledAt = t
  state.os = { cpu: round2(cpu), memory: sample.rss, at: metrics.clock() }
}

function round2 (value) {
  return Math.round(value * 100) / 100
}

const EMPTY_AGENT = { heapUsed: null, heapTotal: null, rss: null, elP50: null, elP90: null, elP95: null, elP99: null, elMax: null, elu: null }

// The OS's figures and the agent's in one point.
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
    elP90: a.elP90,
    elP95: a.elP95,
    elP99: a.elP99,
    elMax: a.elMax,
    elu: a.elu,
    at: Math.max(os ? os.at : 0, agent ? agent.at : 0)
  }
}

module.exports = { sampleRound, merge, EMPTY_AGENT }
