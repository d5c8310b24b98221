'use strict'

const { pm2IoMetrics } = require('./pm2-io')

// The registry's own listeners on the model's events: the daemon log, logs and metrics of each
// new process (in the tick it was forked), a 'change' for every status and intent change, and
// ids given back once a removed instance's processes are gone.
function wireEvents (supervisor) {
  return supervisor.subscribe({
    status: (change, instance) => {
      supervisor.logger?.info({ event: 'status', app: change.name, id: change.id, processPid: change.pid, from: change.from, to: change.to, exit: change.exit, reason: change.reason, delay: change.delay }, `${change.name}[${instance?.index}] ${change.from} → ${change.to}`)
      supervisor.ids.check()
      supervisor.emit('change')
    },
    intent: () => supervisor.emit('change'),
    change: () => supervisor.ids.check(),
    forked: ({ instance, handle }) => supervisor.wire(instance, handle),
    unforked: ({ instance, current }) => { if (current) supervisor.metrics?.untrack(instance.id) },
    // A memory limit needs a sample every second; the agent (if any) is told its report schedule.
    process: (handle, instance) => {
      // the watchdog (max_event_loop_delay, max_heap) needs a report every second, always
      const steady = Boolean(instance.spec.maxEventLoopDelay || instance.spec.maxHeap)
      if (handle.pid) supervisor.metrics?.track(instance.id, handle.pid, { limited: Boolean(instance.spec.maxMemoryRestart), send: handle.reportsBoot ? (msg) => handle.send(msg) : null, steady })
    },
    restart: (r) => {
      supervisor.logger?.info({ event: 'restart', app: r.name, id: r.id, instance: r.instance, reason: r.reason }, `${r.name}[${r.instance}] restart: ${r.reason}`)
    },
    removed: (inst) => {
      supervisor.metrics?.untrack(inst.id)
      supervisor.pm2Io.delete(inst.id)
    }
  })
}

// Logs and metrics of a freshly forked process (same tick as the fork).
function wire (supervisor, instance, handle) {
  supervisor.logSink?.attach({
    spec: instance.spec,
    proc: { id: instance.id, name: instance.name, instance: instance.index, pid: handle.pid },
    stdout: handle.stdout,
    stderr: handle.stderr
  })
  supervisor.pm2Io.delete(instance.id) // @pm2/io metrics of the slot's current process (daemon/pm2-io.js)
  handle.on('message', (msg) => {
    if (instance.handle !== handle) return
    if (supervisor.metrics?.onAgentMessage(instance.id, msg)) return
    const custom = pm2IoMetrics(msg)
    if (custom) supervisor.pm2Io.set(instance.id, custom)
  })
  supervisor.emit('change')
}

module.exports = { wireEvents, wire }
