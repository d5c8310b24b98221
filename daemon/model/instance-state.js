'use strict'

const { STATUS } = require('./process-state')

// The state of an Instance (model/instance.js), private to it: what a slot starts with, and
// the fields everyone may read (each a getter; Instance#view() is a frozen snapshot of all).
function initialState ({ app, index, context }) {
  return {
    id: null,
    app,
    index,
    context,
    status: STATUS.STOPPED,
    handle: null,
    spare: null,
    ready: null, // readiness of the current launch
    stopping: null, // the stop in progress, shared by every caller
    restarts: 0,
    createdAt: Date.now(),
    startedAt: 0, // monotonic
    onlineSince: 0, // wall clock, for display
    lastExit: null,
    crashTimes: [],
    unstableRuns: 0,
    lastRestartDelay: 0,
    lastRestartReason: null,
    givingUp: null, // the reason, while giveUp() stops the process
    readiness: null, // { ready, reason, since } of the current process, with a readiness probe
    // The intent (docs/architecture.md, "Intent"): whether the user wants this slot up, and
    // whether the app is removing it (scale down, delete of one process). Written by the App's
    // commands only (setIntent), never derived from a status. Work that brings the slot up runs
    // under intentSignal, aborted the moment the slot stops being wanted.
    wanted: false,
    endedItself: false, // the slot's process ended and its restart policy keeps it down (a one-shot job)
    finished: false, // … with exit 0 (saved: a restore does not run the job again)
    removing: false
  }
}

// The fields everyone may read (each a getter over #s).
const STATE_KEYS = ['id', 'app', 'index', 'context', 'status', 'handle', 'spare', 'ready', 'stopping', 'restarts', 'createdAt',
  'startedAt', 'onlineSince', 'lastExit', 'crashTimes', 'unstableRuns', 'lastRestartDelay', 'lastRestartReason', 'givingUp',
  'readiness', 'wanted', 'endedItself', 'finished', 'removing']

module.exports = { initialState, STATE_KEYS }
