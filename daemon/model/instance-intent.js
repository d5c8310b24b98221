'use strict'

const { XpmError } = require('../../lib/shared/errors')

// An instance's part of the intent (docs/architecture.md, "Intent"): set by the App when a
// command is accepted. A slot that stops being wanted cancels the work bringing it up (a start,
// a restart, a reload's spare) and its pending crash restart; its own end (a job that finished)
// has nothing left to cancel. Pure: the slot's state and the change in, the effects the
// Instance applies out (Instance#apply, model/instance.js).
function decideIntent (state, { wanted = state.wanted, removing = state.removing, by = 'stop' } = {}) {
  const effects = [['set', { removing }]]
  if (wanted === state.wanted) return effects
  if (wanted) {
    effects.push(['set', { wanted, finished: false, endedItself: false }], ['renewIntent'])
  } else {
    effects.push(['set', { wanted }])
    if (by !== 'finished') effects.push(['cancelRestart'], ['abortIntent', notWanted(state, `was ${by === 'delete' ? 'deleted' : 'stopped'} meanwhile`, by)])
  }
  effects.push(['emit', 'intent', { id: state.id, name: state.name, instance: state.index, wanted }])
  return effects
}

// The signal of work bringing a slot up: aborted the moment it stops being wanted, and from the
// start for a slot the intent does not want up (a slot a scale or a new spec added while the app
// was stopped): no process is ever launched for it.
function intentSignalOf (state, controller) {
  if (state.wanted || controller.signal.aborted) return controller.signal
  return AbortSignal.abort(notWanted(state, 'is not wanted up', 'intent'))
}

function notWanted (state, what, by) {
  return new XpmError('XPM_ERR_CANCELLED', `${state.label} ${what}`, { details: { app: state.name, instance: state.index, id: state.id, cancelledBy: by, intent: true } })
}

module.exports = { decideIntent, intentSignalOf }
