'use strict'

const { STATUS } = require('./process-state')
const { decideRestart, policyFromSpec } = require('./restart-policy')
const { holdUnderWatch } = require('./watch-crash')

// What an exit of one of an Instance's processes means for the slot: a spare or a retiring
// process only leaves; the current one is restarted (after the restart policy's delay), errored,
// or stopped for good (its policy keeps it down). Pure: the slot's state (Instance#state), the
// exit and the clock ({ now: monotonic ms, wall: Date.now() }) in; out the effects the Instance
// applies in order (Instance#apply, model/instance.js) and the outcome its 'exit' event carries:
// { role: 'current' | 'spare' | 'retiring', next: 'restart' | 'errored' | 'stopped' | null,
//   reason?, delay? }.
function decideExit (state, { handle, exit }, clock) {
  const effects = [['emit', 'unforked', { instance: state.instance, handle, current: handle === state.handle }]]
  const role = handle === state.spare || handle.isSpare ? 'spare' : state.handle === handle ? 'current' : 'retiring'
  if (handle === state.spare) effects.push(['set', { spare: null }])
  const wasRetiring = state.retiring.has(handle)
  if (wasRetiring) effects.push(['unretire', handle])
  if (wasRetiring || state.handle !== handle) {
    effects.push(['emit', 'change'])
    return { effects, outcome: { role, next: null } }
  }
  const ran = clock.now - state.startedAt
  const uptime = handle.notReady ? 0 : ran
  const lastExit = { code: exit.code, signal: exit.signal, at: clock.wall, uptime: Math.round(ran) }
  const ended = (reason, more = {}) => ['set', { lastExit: reason === undefined ? lastExit : { ...lastExit, reason }, onlineSince: 0, ...more }]
  if (state.status === STATUS.STOPPING || state.status === STATUS.STOPPED) {
    effects.push(ended(undefined))
    return { effects, outcome: { role, next: null } }
  }
  if (state.givingUp) {
    const reason = state.givingUp
    effects.push(ended(reason, { givingUp: null }), ['status', STATUS.ERRORED, { exit, reason }])
    return { effects, outcome: { role, next: 'errored', reason } }
  }
  const decision = holdUnderWatch(state.spec, decideRestart({
    policy: policyFromSpec(state.spec),
    exit: { ...exit, uptime },
    crashTimes: state.crashTimes,
    unstableRuns: state.unstableRuns,
    now: clock.now
  }))
  const crash = handle.notReady ? 'not ready in time' : exit.signal ? `crash (signal ${exit.signal})` : `crash (exit code ${exit.code})`
  if (decision.action === 'stopped') {
    // the process ended and its restart policy keeps it down (autorestart: false, a
    // stop_exit_code): the app itself finished, so the intent follows (a recovery must not run
    // a finished job again)
    const reason = handle.notReady ? crash : decision.reason
    effects.push(ended(reason), ['intent', { wanted: false, by: 'finished' }],
      ['set', { endedItself: true, finished: exit.code === 0 && !exit.signal }],
      ['status', STATUS.STOPPED, { exit, reason: decision.reason }])
    return { effects, outcome: { role, next: 'stopped', reason } }
  }
  const counted = { crashTimes: decision.crashTimes, unstableRuns: decision.unstableRuns }
  if (decision.action === 'errored') {
    const reason = `${crash}; ${decision.reason}`
    effects.push(ended(reason, counted), ['status', STATUS.ERRORED, { exit, reason: decision.reason }])
    return { effects, outcome: { role, next: 'errored', reason } }
  }
  effects.push(ended(crash, { ...counted, lastRestartDelay: decision.delay }),
    ['status', STATUS.WAITING, { exit, delay: decision.delay, reason: crash }],
    ['restartAfter', decision.delay, crash])
  return { effects, outcome: { role, next: 'restart', delay: decision.delay, reason: crash } }
}

// The 'exit' event of one of the slot's processes: what xpm did to it and what follows.
function exitEvent (state, handle, exit, outcome, clock) {
  return {
    id: state.id,
    name: state.name,
    instance: state.index,
    pid: handle.pid,
    code: exit.code,
    signal: exit.signal,
    ranMs: Math.round(clock.now - (handle.forkedAt ?? clock.now)),
    stopCause: handle.stopCause ?? null, // xpm stopped it, and why
    signalSent: handle.signalSent ?? null, // the last signal `xpm sendSignal` sent it
    notReady: handle.notReady ?? null,
    handle,
    ...outcome
  }
}

module.exports = { decideExit, exitEvent }
