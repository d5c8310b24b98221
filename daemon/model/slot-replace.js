'use strict'

const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

// The steps of a reload of one cluster slot (Instance#replace): a spare is forked beside the
// current process, and only once it is ready does it take the slot; the old one then drains and
// stops. A spare that fails (or a reload cancelled meanwhile) is stopped and the current process
// keeps the slot. What each step means for the slot's state: model/instance-replace.js, applied
// by the Instance's commands (holdSpare, dropSpare, adoptSpare); this file writes nothing.
async function replaceProcess (inst, { reason = 'reload', signal = null, step = () => {} } = {}) {
  signal = inst.workSignal(signal)
  signal.throwIfAborted()
  const old = inst.handle
  const spare = inst.fork()
  spare.markSpare(true) // until it takes the slot
  inst.holdSpare(spare)
  step({ type: 'fork', id: inst.id, instance: inst.index, oldPid: old.pid, newPid: spare.pid })
  try {
    const how = await inst.readinessOf(spare, { signal, label: `replacement ${inst.label} (pid ${spare.pid})` })
    signal?.throwIfAborted()
    // the slot may have ended itself meanwhile (its old process was a job that finished: no
    // longer wanted up, which aborts no signal): a fresh intent signal says so; the spare goes
    inst.intentSignal.throwIfAborted()
    if (how.by === 'listening') inst.app.markListening()
  } catch (err) {
    const cancelled = Boolean(signal?.aborted || err.details?.intent)
    inst.dropSpare(spare, { oldPid: old.pid, cancelled, cause: reason, message: err.message })
    // a spare that listened (readiness probe still failing) may hold keep-alive clients: its
    // stop drains them as any stop does, so the rollback drops no request
    await inst.stopHandle(spare, cancelled ? 'cancelled' : `rolled back (${reason})`, { ...inst.spec, killTimeout: Math.min(inst.spec.killTimeout ?? SPEC_DEFAULTS.killTimeout, 2000) })
    throw err
  }
  step({ type: 'ready', id: inst.id, instance: inst.index, newPid: spare.pid })
  spare.markSpare(false)
  const previous = inst.adoptSpare(spare, reason, old.pid)
  if (previous && !previous.exited) {
    await inst.stopHandle(previous, reason)
  }
  step({ type: 'stopped', id: inst.id, instance: inst.index, oldPid: previous?.pid ?? old.pid })
  return { oldPid: old.pid, newPid: spare.pid }
}

module.exports = { replaceProcess }
