'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { TYPES, INVALID } = require('../../lib/shared/config/types')

// A signal name as the user wrote it ('SIGUSR2', 'usr2', 'sigterm') → 'SIGUSR2'. Same rule as
// the kill_signal option. Pure.
function normalizeSignal (value) {
  const name = typeof value === 'string' ? TYPES.signal.parse(value.trim()) : INVALID
  if (name === INVALID) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected a signal name such as SIGUSR2 or SIGTERM, got ${JSON.stringify(value)}`)
  }
  return name
}

// `xpm sendSignal`: the signal goes to every process of the target that is running. Fork mode
// processes lead their own process group, so a shell script's children get it too.
function sendSignal (supervisor, target, signal) {
  const name = normalizeSignal(signal)
  const sent = []
  const skipped = []
  for (const inst of supervisor.resolve(target)) {
    const pid = inst.pid
    if (inst.signal(name)) sent.push({ id: inst.id, name: inst.name, instance: inst.index, pid })
    else skipped.push({ id: inst.id, name: inst.name, instance: inst.index, status: inst.status })
  }
  supervisor.logger?.info({ event: 'signal', signal: name, target: String(target), pids: sent.map((s) => s.pid) }, `sent ${name} to ${sent.length} process(es) of ${target}`)
  return { signal: name, sent, skipped }
}

module.exports = { normalizeSignal, sendSignal }
