'use strict'

// `xpm reset <name|id|all>`: forget restart counts and crash history, so max_restarts and the
// backoff start afresh and `restarts` reads 0. The last exit stays visible.
function resetCounters (supervisor, target) {
  const instances = supervisor.resolve(target)
  for (const inst of instances) {
    inst.restarts = 0
    inst.crashTimes = []
    inst.unstableRuns = 0
    inst.lastRestartDelay = 0
    inst.lastRestartReason = null
  }
  supervisor.logger?.info({ event: 'reset', target: String(target), ids: instances.map((i) => i.id) }, `reset the restart counters of ${target}`)
  supervisor.emit('change')
  return { ids: instances.map((i) => i.id) }
}

module.exports = { resetCounters }
