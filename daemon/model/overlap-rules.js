'use strict'

// What a command does to the operations already running or queued on the same app. This table
// is the contract documented in docs/architecture.md ("Overlapping commands"); op-lane.js
// implements exactly this and nothing else.
//
//   queue   waits for every earlier operation of the app to finish, then runs
//   cancel  aborts every earlier *cancellable* operation (running and queued; each reports
//           XPM_ERR_CANCELLED "<kind> of <app> cancelled by <this kind>"), waits for them to
//           unwind, then runs
//
// Cancellable operations are the ones that bring processes up; the ones that take them down
// (stop, delete, kill) always run to the end, so a second stop simply follows the first.
const RULES = Object.freeze({
  start: 'queue', // also a restore or `xpm resurrect` starting saved apps
  restart: 'queue',
  reload: 'queue', // user reloads and policy restarts (watch, cron, memory) alike
  scale: 'queue',
  stop: 'cancel',
  delete: 'cancel',
  kill: 'cancel'
})

const CANCELLABLE = new Set(['start', 'restart', 'reload', 'scale'])

// signal and reset never wait: they act on the processes as they are at that moment.
const IMMEDIATE = new Set(['signal', 'reset'])

module.exports = { RULES, CANCELLABLE, IMMEDIATE }
