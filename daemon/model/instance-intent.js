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
    inst.intentController.abort(new XpmError('XPM_ERR_CANCELLED', `${inst.label} was ${by === 'delete' ? 'deleted' : 'stopped'} meanwhile`,
      { details: { app: inst.name, instance: inst.index, id: inst.id, cancelledBy: by, intent: true } }))
  }
  inst.emit('intent', { id: inst.id, name: inst.name, instance: inst.index, wanted })
}

module.exports = { setIntent }
