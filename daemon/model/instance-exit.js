'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS } = require('./process-state')
const { decideRestart, policyFromSpec } = require('./restart-policy')
const { holdUnderWatch } = require('./watch-crash')

// What an exit of one of an Instance's processes means for the slot: a spare or a retiring
// process only leaves; the current one is restarted (after the restart policy's delay), errored,
// or stopped for good (its policy keeps it down). Returns { role, next, reason?, delay? } for the
// 'exit' event. Writes only the instance it is given (model/instance.js calls it).
function settleExit (inst, handle, exit) {
  inst.emit('unforked', { instance: inst, handle, current: handle === inst.handle })
  const role = handle === inst.spare || handle.isSpare ? 'spare' : inst.handle === handle ? 'current' : 'retiring'
  if (handle === inst.spare) inst.spare = null
  if (inst.retiring.delete(handle) || inst.handle !== handle) {
    inst.emit('change')
    return { role, next: null }
  }
  const uptime = handle.notReady ? 0 : performance.now() - inst.startedAt
  inst.lastExit = { code: exit.code, signal: exit.signal, at: Date.now(), uptime: Math.round(performance.now() - inst.startedAt) }
  inst.onlineSince = 0
  if (inst.status === STATUS.STOPPING || inst.status === STATUS.STOPPED) return { role, next: null }
  if (inst.givingUp) {
    inst.lastExit.reason = inst.givingUp
    inst.givingUp = null
    inst.setStatus(STATUS.ERRORED, { exit, reason: inst.lastExit.reason })
    return { role, next: 'errored', reason: inst.lastExit.reason }
  }
  const decision = holdUnderWatch(inst.spec, decideRestart({
    policy: policyFromSpec(inst.spec),
    exit: { ...exit, uptime },
    crashTimes: inst.crashTimes,
    unstableRuns: inst.unstableRuns,
    now: performance.now()
  }))
  const crash = handle.notReady ? 'not ready in time' : exit.signal ? `crash (signal ${exit.signal})` : `crash (exit code ${exit.code})`
  inst.lastExit.reason = decision.action === 'stopped' && !handle.notReady ? decision.reason : crash
  if (decision.action === 'stopped') {
    // the process ended and its restart policy keeps it down (autorestart: false, a
    // stop_exit_code): the app itself finished, so the intent follows (a recovery must not run
    // a finished job again)
    inst.setIntent({ wanted: false, by: 'finished' })
    inst.endedItself = true
    inst.finished = exit.code === 0 && !exit.signal
    inst.setStatus(STATUS.STOPPED, { exit, reason: decision.reason })
    return { role, next: 'stopped', reason: inst.lastExit.reason }
  }
  inst.crashTimes = decision.crashTimes
  inst.unstableRuns = decision.unstableRuns
  if (decision.action === 'errored') {
    inst.lastExit.reason = `${crash}; ${decision.reason}`
    inst.setStatus(STATUS.ERRORED, { exit, reason: decision.reason })
    return { role, next: 'errored', reason: inst.lastExit.reason }
  }
  inst.lastRestartDelay = decision.delay
  inst.setStatus(STATUS.WAITING, { exit, delay: decision.delay, reason: crash })
  inst.restartTimer = setTimeout(() => {
    inst.restartTimer = null
    if (inst.status !== STATUS.WAITING || !inst.wanted) return
    inst.noteRestart(crash)
    inst.launch()
  }, decision.delay)
  return { role, next: 'restart', delay: decision.delay, reason: crash }
}

// The 'exit' event of one of the slot's processes: what xpm did to it and what follows.
function exitEvent (inst, handle, exit) {
  const outcome = settleExit(inst, handle, exit)
  return {
    id: inst.id,
    name: inst.name,
    instance: inst.index,
    pid: handle.pid,
    code: exit.code,
    signal: exit.signal,
    ranMs: Math.round(performance.now() - (handle.forkedAt ?? performance.now())),
    stopCause: handle.stopCause ?? null, // xpm stopped it, and why
    signalSent: handle.signalSent ?? null, // the last signal `xpm sendSignal` sent it
    notReady: handle.notReady ?? null,
    handle,
    ...outcome // role: 'current' | 'spare' | 'retiring'; next: 'restart' | 'errored' | 'stopped' | null
  }
}

module.exports = { settleExit, exitEvent }
