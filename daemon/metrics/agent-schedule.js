'use strict'

const { TurnBudget } = require('../../lib/shared/turn-budget')
// loop-delay.js, not metrics-reporter.js: the daemon does not load node:v8 for two constants
const { resolutionFor, RESOLUTION_MS } = require('../../lib/agent/loop-delay')

// What each process' agent is told about its report interval (daemon/metrics/index.js): an
// internal NODE_ message, invisible to the app, sent when it starts and whenever its rate changes.
const SCHEDULE_CMD = 'NODE_XPM_METRICS' // see lib/agent/metrics-schedule.js
const sendTurns = new TurnBudget()

// The interval a process' agent reports at: the full rate while it is watched (a `list`'s lease
// alone does not count: attention.js), else the pace of Prometheus scrapes, else the slow one.
// id null: the interval of a process nobody names.
function agentInterval (metrics, id = null) {
  const { attention } = metrics
  if (attention.agentCovers(id)) return metrics.fullMs
  return attention.scrapeMs ?? metrics.slowMs
}

// Sends a process' agent its interval when it changed (always the full rate for a steady one).
// coarse: the full rate with 100 ms loop ticks (a `jlist`'s lease: attention.agentFine), not
// while Prometheus scrapes come at a pace whose own ticks are fine (under 5 s): they keep those.
function tellAgent (metrics, state) {
  if (!state.send) return
  const { attention } = metrics
  const ms = state.steady ? metrics.fullMs : agentInterval(metrics, state.id)
  const scrapesFine = attention.scrapeMs !== null && resolutionFor(attention.scrapeMs) === RESOLUTION_MS
  const coarse = !state.steady && ms === metrics.fullMs && !attention.agentFine(state.id) && !scrapesFine
  const told = state.steady ? `${ms} heartbeat` : coarse ? `${ms} coarse` : ms
  if (told === state.told) return
  state.told = told
  const message = { cmd: SCHEDULE_CMD, intervalMs: ms }
  if (state.steady) message.heartbeat = true
  if (coarse) message.coarse = true
  // Each message wakes its process, which may take the daemon's core: a `jlist` of 1,000 sent
  // them all in one turn and held the loop for 230 ms. In order, a few milliseconds a turn.
  sendTurns.run(() => state.send(message)).catch(() => {}) // a closing channel: its exit is reported elsewhere
}

module.exports = { agentInterval, tellAgent, SCHEDULE_CMD }
