'use strict'

// Under watch, a crash does not restart the app: it waits, errored, for the next file change
// (which restarts it), instead of looping on a broken edit. Exits that mean "stopped" (stop_exit_codes,
// autorestart off) and the errored verdict of the restart policy are kept as they are. Pure.
function holdUnderWatch (spec, decision) {
  if (!spec.watch || decision.action !== 'restart') return decision
  return { ...decision, action: 'errored', reason: 'crashed under watch: waiting for a file change' }
}

module.exports = { holdUnderWatch }
