'use strict'

// The catalogue of the model's events: every name the event bus (daemon/event-bus.js, the
// Supervisor) carries, the one shape of its payload, who emits it and who listens. The bus
// refuses a name that is not here (emit and subscribe); test/unit/events-catalogue.test.js
// checks the payloads a driven model emits against these shapes, and scans the code for names.
//
// Every handler is called as handler(payload, instance): `instance` is the Instance the event is
// about when an instance emits it (Instance#emit), undefined otherwise.
//   payload: the keys of the payload object (a trailing '?': may be absent), or the kind of
//            value it is ('Instance', 'ProcessHandle'), or null (no payload).
//   instance: whether the second argument is the Instance (always, never, or 'maybe').
const EVENTS = Object.freeze({
  status: {
    payload: ['id', 'name', 'from', 'to', 'pid', 'exit?', 'reason?', 'delay?', 'warning?', 'warningKind?'],
    instance: true,
    emittedBy: 'Instance: every status change (to === from for a reload\'s swap, reason \'reloaded\')',
    heardBy: 'supervisor-wiring (daemon log), health, hooks, journal, policies, process-changes, otel lifecycle'
  },
  restart: {
    payload: ['id', 'name', 'instance', 'reason', 'replaced?', 'pid?', 'oldPid?'],
    instance: true,
    emittedBy: 'Instance: every counted restart (noteRestart; a reload\'s replacement adds replaced, pid, oldPid)',
    heardBy: 'supervisor-wiring (daemon log), hooks, journal, process-changes, otel lifecycle'
  },
  process: {
    payload: 'ProcessHandle',
    instance: true,
    emittedBy: 'Instance: a process takes the slot (a launch, a reload\'s spare)',
    heardBy: 'supervisor-wiring (metrics tracking), process-changes'
  },
  change: {
    payload: null,
    instance: 'maybe',
    emittedBy: 'Instance, App, Supervisor, dependencies: something a snapshot shows changed',
    heardBy: 'state-keeper, health, hooks, policies, watchdog-tracker, process-changes, prometheus, dependencies, otel-switch, runtime'
  },
  exit: {
    payload: ['id', 'name', 'instance', 'pid', 'code', 'signal', 'ranMs', 'stopCause', 'signalSent', 'notReady', 'handle', 'role', 'next', 'reason?', 'delay?'],
    instance: true,
    emittedBy: 'Instance: an OS process of the slot exited (model/instance-exit.js)',
    heardBy: 'journal, hooks'
  },
  'replace-failed': {
    payload: ['id', 'name', 'instance', 'pid', 'oldPid', 'cause', 'reason'],
    instance: true,
    emittedBy: 'Instance: a reload\'s replacement was rolled back (model/instance-replace.js)',
    heardBy: 'journal, hooks'
  },
  readiness: {
    payload: ['id', 'name', 'instance', 'pid', 'ready', 'reason'],
    instance: true,
    emittedBy: 'Instance: the readiness probe\'s verdict on an online process changed',
    heardBy: 'none on the bus (a change follows it)'
  },
  intent: {
    payload: ['name', 'id', 'instance', 'wanted'],
    instance: 'maybe',
    emittedBy: 'Instance: whether it is wanted up changed; App: a command\'s intent was recorded (id, instance, wanted: null)',
    heardBy: 'state-keeper (saved at once), supervisor-wiring (a change), process-changes'
  },
  forked: {
    payload: ['instance', 'handle'],
    instance: true,
    emittedBy: 'Instance: a new OS process, in the tick it was forked',
    heardBy: 'supervisor-wiring (logs, metrics), state-keeper, watchdog-tracker'
  },
  unforked: {
    payload: ['instance', 'handle', 'current'],
    instance: true,
    emittedBy: 'Instance: one of its OS processes exited',
    heardBy: 'supervisor-wiring (metrics untracked)'
  },
  added: {
    payload: 'Instance',
    instance: false,
    emittedBy: 'App: an instance joined the app',
    heardBy: 'process-changes'
  },
  removed: {
    payload: 'Instance',
    instance: false,
    emittedBy: 'App: an instance left the app',
    heardBy: 'supervisor-wiring (metrics untracked), journal, process-changes'
  },
  command: {
    payload: ['type', 'instances'],
    instance: false,
    emittedBy: 'App: a user\'s stop or delete was accepted (type \'stop\')',
    heardBy: 'policies (watch and cron stop), dependencies'
  },
  reloaded: {
    payload: ['app', 'reason', 'result'],
    instance: false,
    emittedBy: 'App: a reload job ended (result: success, failed, cancelled)',
    heardBy: 'prometheus (xpm_reloads_total)'
  },
  'dependency-failed': {
    payload: ['name', 'id', 'instance', 'dependency', 'reason'],
    instance: false,
    emittedBy: 'dependencies: a start held back because a dependency failed, once per instance',
    heardBy: 'journal'
  }
})

// EventEmitter's own names, which every emitter may carry.
const EMITTER_EVENTS = new Set(['error', 'newListener', 'removeListener'])

function isKnownEvent (name) {
  return Object.hasOwn(EVENTS, name) || EMITTER_EVENTS.has(name)
}

// What is wrong with one emit against the catalogue: [] when nothing is.
function payloadProblems (name, payload, instance) {
  const entry = EVENTS[name]
  if (!entry) return [`"${String(name)}" is not in the catalogue (daemon/events.js)`]
  const problems = []
  const shape = entry.payload
  if (shape === null) {
    if (payload !== undefined) problems.push(`${name}: takes no payload`)
  } else if (typeof shape === 'string') {
    if (payload?.constructor?.name !== shape && !isA(payload, shape)) problems.push(`${name}: the payload is not a ${shape}`)
  } else if (payload === null || typeof payload !== 'object') {
    problems.push(`${name}: the payload is not an object`)
  } else {
    const keys = new Set(shape.map((k) => k.replace(/\?$/, '')))
    for (const key of shape) if (!key.endsWith('?') && !(key in payload)) problems.push(`${name}: no "${key}"`)
    for (const key of Object.keys(payload)) if (!keys.has(key)) problems.push(`${name}: "${key}" is not in its shape`)
  }
  const hasInstance = instance !== undefined && instance !== null
  if (entry.instance === true && !hasInstance) problems.push(`${name}: emitted without its instance`)
  if (entry.instance === false && hasInstance) problems.push(`${name}: emitted with an instance`)
  return problems
}

function isA (value, className) {
  for (let proto = value && Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name === className) return true
  }
  return false
}

module.exports = { EVENTS, isKnownEvent, payloadProblems }
