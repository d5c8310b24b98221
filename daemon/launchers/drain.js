'use strict'

// The message that asks a worker's agent to drain before it ends (lib/agent/drain.js): sent by
// every launcher's release(), so every stop, restart, delete, reload, scale-down, kill, policy
// restart and shutdown drains the process first.
//   idleMs        keep-alive clients still idle this long after the drain starts are closed
//                 between requests: a quarter of kill_timeout, from 50 ms to 1 s, so an idle
//                 client never holds the stop until SIGKILL
//   closeServers  { signal, holdMs }: the app's servers stop accepting, and the process is kept
//                 alive until its stop signal arrives (fork mode: no primary stops routing to it)
//   report        the agent says { 'xpm:agent': 'drained' } once its servers have stopped
//                 accepting and no HTTP connection is left (an upgraded one is not waited for)
const CMD = 'NODE_XPM_DRAIN'
const MIN_IDLE_MS = 50
const MAX_IDLE_MS = 1000

function drainMessage ({ killTimeout = 5000, report = false, signal = null } = {}) {
  const idleMs = Math.round(Math.min(MAX_IDLE_MS, Math.max(MIN_IDLE_MS, killTimeout / 4)))
  return { cmd: CMD, idleMs, report, closeServers: signal ? { signal, holdMs: killTimeout } : null }
}

function isDrained (msg) {
  return msg !== null && typeof msg === 'object' && msg['xpm:agent'] === 'drained'
}

module.exports = { drainMessage, isDrained, CMD }
