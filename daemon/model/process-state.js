'use strict'

// Status names follow PM2 so scripts carry over. Every change goes through transition().
const STATUS = Object.freeze({
  LAUNCHING: 'launching',
  ONLINE: 'online',
  STOPPING: 'stopping',
  STOPPED: 'stopped',
  ERRORED: 'errored',
  WAITING: 'waiting restart'
})

const ALLOWED = {
  launching: ['online', 'stopping', 'waiting restart', 'errored', 'stopped'],
  online: ['stopping', 'waiting restart', 'errored', 'stopped'],
  stopping: ['stopped'],
  stopped: ['launching', 'stopping'],
  errored: ['launching', 'stopped', 'stopping'],
  'waiting restart': ['launching', 'stopped', 'stopping', 'errored'] // errored: a policy gave up on it (Instance#giveUp)
}

function canTransition (from, to) {
  return ALLOWED[from]?.includes(to) ?? false
}

function assertTransition (from, to) {
  if (!canTransition(from, to)) throw new Error(`Invalid status change ${from} → ${to}`)
  return to
}

module.exports = { STATUS, canTransition, assertTransition }
