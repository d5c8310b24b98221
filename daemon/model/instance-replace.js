'use strict'

const { STATUS } = require('./process-state')

// The decisions of a reload of one cluster slot (its steps: model/slot-replace.js): a spare is
// forked beside the current process, and only once it is ready does it take the slot; the old
// one then drains and stops. A spare that fails (or a reload cancelled meanwhile) is stopped and
// the current process keeps the slot. Pure: the slot's state in, the effects the Instance applies
// out (Instance#apply, model/instance.js).

// The spare is forked: the slot shows it.
function decideSpareForked (state, { spare }) {
  return [['set', { spare }], ['emit', 'change']]
}

// The spare failed, or the reload was cancelled: the slot lets go of it; a failure is said.
function decideSpareFailed (state, { spare, oldPid, cancelled, cause, message }) {
  const effects = state.spare === spare ? [['set', { spare: null }]] : []
  if (!cancelled) effects.push(['emit', 'replace-failed', { id: state.id, name: state.name, instance: state.index, pid: spare.pid, oldPid, cause, reason: message }])
  return effects
}

// The spare is ready: it takes the slot, and the process it replaces (the old worker, or
// whatever a crash restart put in the slot meanwhile) retires. A reload counts as a restart.
function decideSpareReady (state, { spare, reason, oldPid }, clock) {
  const previous = state.handle
  const effects = [
    ['cancelRestart'],
    ['set', { spare: null, handle: spare, givingUp: null, startedAt: clock.now, onlineSince: clock.wall, readiness: null }],
    ['emit', 'process', spare]
  ]
  if (previous && !previous.exited) effects.push(['retire', previous])
  if (state.status !== STATUS.ONLINE) {
    if (state.status !== STATUS.LAUNCHING) effects.push(['status', STATUS.LAUNCHING, {}])
    effects.push(['status', STATUS.ONLINE, {}])
  }
  effects.push(['emit', 'status', { id: state.id, name: state.name, from: STATUS.ONLINE, to: STATUS.ONLINE, pid: spare.pid, reason: 'reloaded' }],
    ['noteRestart', reason, { replaced: true, pid: spare.pid, oldPid }])
  return { effects, previous }
}

module.exports = { decideSpareForked, decideSpareFailed, decideSpareReady }
