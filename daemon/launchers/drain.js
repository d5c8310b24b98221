'use strict'

// The message that asks a worker's agent to drain before it ends (lib/agent/drain.js): sent by
// every launcher's release(), so every stop, restart, delete, reload, scale-down, kill, policy
// restart and shutdown drains the process first.
//   idleMs        keep-alive clients still idle this long after the drain starts are closed
//                 between requests: a quarter of kill_timeout, from 50 ms to 1 s, so an idle
//                 client never holds the stop until SIGKILL
//   closeServers  { signal, holdMs }: the app's servers stop accepting, and the process is kept
//                 alive until its stop signal arrives (fork mode: no primary stops routing to it)
//   report        the agent says { 'xpm:agent': 'draining' } at once, and { 'xpm:agent':
//                 'drained' } once its servers have stopped accepting and no HTTP connection
//                 is left (an upgraded one is not waited for)
const CMD = 'NODE_XPM_DRAIN'
const MIN_IDLE_MS = 50
const MAX_IDLE_MS = 1000
const MIN_ACK_MS = 250
const MAX_ACK_MS = 1000

function drainMessage ({ killTimeout = 5000, report = false, signal = null } = {}) {
  const idleMs = Math.round(Math.min(MAX_IDLE_MS, Math.max(MIN_IDLE_MS, killTimeout / 4)))
  return { cmd: CMD, idleMs, report, closeServers: signal ? { signal, holdMs: killTimeout } : null }
}

function isDrained (msg) {
  return agentSays(msg, 'drained')
}

function agentSays (msg, what) {
  return msg !== null && typeof msg === 'object' && msg['xpm:agent'] === what
}

// After the drain message: resolves once the process has drained, has ended (`exit`, or one of
// `endEvents`), after timeoutMs, or when it has not said 'draining' within a quarter of
// kill_timeout (from 250 ms to 1 s): a process whose event loop is blocked (a hung app, a long
// synchronous boot) can never drain, and its stop signal must not wait for it. answers false (no
// agent inside): no 'draining' is waited for.
function untilDrained (handle, { killTimeout = 5000, timeoutMs = null, endEvents = [], answers = true } = {}) {
  const ackMs = Math.min(MAX_ACK_MS, Math.max(MIN_ACK_MS, killTimeout / 4))
  return new Promise((resolve) => {
    const events = ['exit', ...endEvents]
    const done = () => {
      clearTimeout(ack)
      clearTimeout(limit)
      handle.off('message', onMessage)
      for (const event of events) handle.off(event, done)
      resolve()
    }
    let answered = false
    const onMessage = (msg) => {
      if (isDrained(msg)) done()
      else if (agentSays(msg, 'draining')) answered = true
    }
    // after the I/O of that turn: a daemon busy past ackMs has not yet read an answer that came
    const ack = answers ? setTimeout(() => setImmediate(() => { if (!answered) done() }), ackMs) : null
    const limit = timeoutMs === null ? null : setTimeout(done, timeoutMs)
    handle.on('message', onMessage)
    for (const event of events) handle.on(event, done)
  })
}

module.exports = { drainMessage, isDrained, untilDrained, CMD }
