'use strict'

const { performance } = require('node:perf_hooks')
const { STATUS } = require('./process-state')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

// Reload of one cluster slot: a spare is forked beside the current process, and only once it
// is ready does it take the slot; the old one then drains and stops. A spare that fails (or a
// reload cancelled meanwhile) is stopped and the current process keeps the slot.
// Instance#replace (model/instance.js) calls it; it writes only that instance.
async function replaceProcess (inst, { reason = 'reload', signal = null, step = () => {} } = {}) {
  signal = inst.workSignal(signal)
  signal.throwIfAborted()
  const old = inst.handle
  const spare = inst.fork()
  spare.isSpare = true // until it takes the slot
  inst.spare = spare
  inst.emit('change')
  step({ type: 'fork', id: inst.id, instance: inst.index, oldPid: old.pid, newPid: spare.pid })
  try {
    const how = await inst.readinessOf(spare, { signal, label: `replacement ${inst.label} (pid ${spare.pid})` })
    signal?.throwIfAborted()
    // the slot may have ended itself meanwhile (its old process was a job that finished: no
    // longer wanted up, which aborts no signal): a fresh intent signal says so; the spare goes
    inst.intentSignal.throwIfAborted()
    if (how.by === 'listening') inst.app.markListening()
  } catch (err) {
    if (inst.spare === spare) inst.spare = null
    const cancelled = Boolean(signal?.aborted || err.details?.intent)
    if (!cancelled) inst.emit('replace-failed', { id: inst.id, name: inst.name, instance: inst.index, pid: spare.pid, oldPid: old.pid, cause: reason, reason: err.message })
    // a spare that listened (readiness probe still failing) may hold keep-alive clients: its
    // stop drains them as any stop does, so the rollback drops no request
    await inst.stopHandle(spare, cancelled ? 'cancelled' : `rolled back (${reason})`, { ...inst.spec, killTimeout: Math.min(inst.spec.killTimeout ?? SPEC_DEFAULTS.killTimeout, 2000) })
    throw err
  }
  step({ type: 'ready', id: inst.id, instance: inst.index, newPid: spare.pid })

  const previous = inst.handle // the old worker, or whatever crash-restart put in the slot meanwhile
  clearTimeout(inst.restartTimer)
  inst.restartTimer = null
  inst.spare = null
  spare.isSpare = false
  inst.handle = spare
  inst.givingUp = null
  inst.startedAt = performance.now()
  inst.onlineSince = Date.now()
  inst.readiness = null
  inst.emit('process', spare)
  if (previous && !previous.exited) inst.retiring.add(previous)
  if (inst.status !== STATUS.ONLINE) {
    if (inst.status !== STATUS.LAUNCHING) inst.setStatus(STATUS.LAUNCHING)
    inst.setStatus(STATUS.ONLINE)
  }
  inst.emit('status', { id: inst.id, name: inst.name, from: STATUS.ONLINE, to: STATUS.ONLINE, pid: spare.pid, reason: 'reloaded' })
  inst.noteRestart(reason, { replaced: true, pid: spare.pid, oldPid: old.pid })
  if (previous && !previous.exited) {
    await inst.stopHandle(previous, reason)
  }
  step({ type: 'stopped', id: inst.id, instance: inst.index, oldPid: previous?.pid ?? old.pid })
  return { oldPid: old.pid, newPid: spare.pid }
}

module.exports = { replaceProcess }
