'use strict'

const { XpmError } = require('../../lib/shared/errors')

// An instance's part of the intent (docs/architecture.md, "Intent"): set by the App when a
// command is accepted. A slot that stops being wanted cancels the work bringing it up (a start,
// a restart, a reload's spare) and its pending crash restart; its own end (a job that finished)
// has nothing left to cancel.
function setIntent (inst, { wanted = inst.wanted, removing = inst.removing, by = 'stop' } = {}) {
  inst.removing = removing
  if (wanted === inst.wanted) return
  inst.wanted = wanted
  if (wanted) {
    inst.finished = false
    inst.endedItself = false
    inst.intentController = new AbortController()
  } else if (by !== 'finished') {
    clearTimeout(inst.restartTimer)
    inst.restartTimer = null
    inst.intentController.abort(notWanted(inst, `was ${by === 'delete' ? 'deleted' : 'stopped'} meanwhile`, by))
  }
  inst.emit('intent', { id: inst.id, name: inst.name, instance: inst.index, wanted })
}

// The signal of work bringing a slot up: aborted the moment it stops being wanted, and from the
// start for a slot the intent does not want up (a slot a scale or a new spec added while the app
// was stopped): no process is ever launched for it.
function intentSignalOf (inst) {
  if (inst.wanted || inst.intentController.signal.aborted) return inst.intentController.signal
  return AbortSignal.abort(notWanted(inst, 'is not wanted up', 'intent'))
}

function notWanted (inst, what, by) {
  return new XpmError('XPM_ERR_CANCELLED', `${inst.label} ${what}`, { details: { app: inst.name, instance: inst.index, id: inst.id, cancelledBy: by, intent: true } })
}

module.exports = { setIntent, intentSignalOf }
