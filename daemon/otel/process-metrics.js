'use strict'

// The process figures the daemon already holds (daemon/metrics), as OpenTelemetry instruments
// of one app's meter, read at each export (the metric reader's interval): no extra sampling
// timer. Names follow the semantic conventions (process.*, v8js.*, nodejs.eventloop.*); what
// they have no name for is under xpm.*. Each point carries the process's identity.
const GAUGES = [
  ['process.cpu.utilization', '1', 'CPU used by the process, over the last sample interval (1 = one core)', (p) => p.cpu / 100],
  ['process.memory.usage', 'By', 'Resident memory of the process (RSS)', (p) => p.memory],
  ['v8js.memory.heap.used', 'By', 'V8 heap in use, from xpm\'s agent', (p) => p.heapUsed],
  ['v8js.memory.heap.limit', 'By', 'V8 heap allocated (heapTotal), from xpm\'s agent', (p) => p.heapTotal],
  ['nodejs.eventloop.delay.p50', 's', 'Event-loop delay, median', (p) => seconds(p.elP50)],
  ['nodejs.eventloop.delay.p90', 's', 'Event-loop delay, 90th percentile', (p) => seconds(p.elP90)],
  ['nodejs.eventloop.delay.p99', 's', 'Event-loop delay, 99th percentile', (p) => seconds(p.elP99)],
  ['nodejs.eventloop.delay.max', 's', 'Event-loop delay, maximum', (p) => seconds(p.elMax)],
  ['nodejs.eventloop.utilization', '1', 'Event-loop utilization', (p) => p.elu]
]

const seconds = (ms) => typeof ms === 'number' ? ms / 1000 : null

// meter: the app's Meter. instancesOf(): the app's instances now. metrics: daemon/metrics.
function registerProcessMetrics (meter, { instancesOf, metrics }) {
  const gauges = GAUGES.map(([name, unit, description, value]) => [meter.createObservableGauge(name, { unit, description }), value])
  const restarts = meter.createObservableCounter('xpm.process.restarts', { unit: '{restart}', description: 'Restarts of the process slot since the app started (xpm)' })
  const status = meter.createObservableGauge('xpm.process.status', { unit: '1', description: '1 for the status the process is in (attribute xpm.status), as `xpm list` shows it (xpm)' })
  const up = meter.createObservableGauge('xpm.process.up', { unit: '1', description: '1 while the process is online, else 0 (xpm)' })
  const callback = async (observer) => {
    const instances = instancesOf()
    // figures older than 2 s are read first; not a watcher: the agents keep their pace
    await metrics?.fresh(instances.map((i) => i.id), { lease: false, scrape: false })
    for (const inst of instances) {
      const attrs = { 'xpm.id': inst.id, 'xpm.instance': inst.index, 'service.instance.id': inst.serviceInstanceId }
      if (inst.pid) attrs['process.pid'] = inst.pid
      observer.observe(restarts, inst.restarts, attrs)
      observer.observe(status, 1, { ...attrs, 'xpm.status': inst.status })
      observer.observe(up, inst.status === 'online' ? 1 : 0, attrs)
      const point = inst.pid ? metrics?.latest(inst.id) : null
      if (!point) continue
      for (const [gauge, value] of gauges) {
        const v = value(point)
        if (typeof v === 'number' && Number.isFinite(v)) observer.observe(gauge, v, attrs)
      }
    }
  }
  meter.addBatchObservableCallback(callback, [...gauges.map(([g]) => g), restarts, status, up])
}

module.exports = { registerProcessMetrics }
