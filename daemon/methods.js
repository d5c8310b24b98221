'use strict'

const { XpmError } = require('../lib/errors')
const { show } = require('../lib/units')
const { MAX_LOG_LINES } = require('../lib/config/limits')
const { checkSpecs, checkPaths, checkCapacity } = require('./check-specs')
const { isFieldList, wants } = require('../lib/process-fields')

// Checks of the params every method takes. A value of the wrong type or out of range is an
// XPM_ERR_BAD_ARGUMENT that names the param (never an internal error further in).
const bad = (what, value) => new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected ${what}, got ${show(value)}`)

// 'all', an app name, a process id, a namespace or a script (a string, or a whole number from a
// hand-written client), or a non-empty array of up to 1024 of these (several targets at once).
const MAX_TARGETS = 1024
function oneTarget (value) {
  if (typeof value === 'string' && value !== '' && value.length <= 1024) return value
  if (Number.isSafeInteger(value) && value >= 0) return String(value)
  return null
}

function target (params, { optional = false } = {}) {
  const value = params.target
  if (value === undefined && optional) return 'all'
  const single = oneTarget(value)
  if (single !== null) return single
  if (Array.isArray(value) && value.length > 0 && value.length <= MAX_TARGETS) {
    const list = value.map(oneTarget)
    if (!list.includes(null)) return list.length === 1 ? list[0] : list
  }
  throw bad(`\`target\` to be an app name, a process id, a namespace, a script, "all", or an array of up to ${MAX_TARGETS} of these`, value)
}

const isAll = (name) => name === 'all'

function optionalBoolean (params, key, fallback) {
  const value = params[key]
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw bad(`\`${key}\` to be true or false`, value)
  return value
}

// An array whose items are all in `allowed` (no repeats needed); undefined → fallback.
function optionalSubset (params, key, allowed, fallback) {
  const value = params[key]
  if (value === undefined) return fallback
  if (!Array.isArray(value) || value.length === 0 || value.length > allowed.length * 4 || !value.every((v) => allowed.includes(v))) {
    throw bad(`\`${key}\` to be a non-empty array of ${allowed.map((a) => `"${a}"`).join(', ')}`, value)
  }
  return value
}

// The fields a reply keeps (lib/process-fields.js); null: all of them.
function optionalFields (params) {
  const value = params.fields
  if (value === undefined || value === null) return null
  if (!isFieldList(value)) throw bad('`fields` to be a list of up to 64 field names', value)
  return value
}

function lineCount (params) {
  const value = params.lines
  if (value === undefined) return 15
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_LOG_LINES) throw bad(`\`lines\` to be a whole number from 0 to ${MAX_LOG_LINES}`, value)
  return value
}

// Commands of one connection reach the app model in the order they were sent, even when one of
// them first awaits a check (start's path checks): a stop sent after a start must find that start
// in the app's queue and cancel it, not run before it. `check` runs at once (in parallel with the
// earlier ones); `enter` hands the command to the model, synchronously, in turn.
const admissions = new WeakMap() // connection → its earlier commands have been handed over

function inTurn (conn, check, enter) {
  const checked = Promise.resolve().then(check)
  const turn = (admissions.get(conn) ?? Promise.resolve()).then(() => checked).then((args) => ({ op: enter(args) }))
  admissions.set(conn, turn.then(() => {}, () => {}))
  return turn.then(({ op }) => op)
}

// The socket's method table: each entry validates its params and calls one part of the daemon.
// Params is always an object here (daemon/server.js refuses anything else).
function inTurnAll (methods) {
  const out = {}
  for (const [name, fn] of Object.entries(methods)) out[name] = (params, conn) => inTurn(conn, null, () => fn(params, conn))
  return out
}

// phase: the daemon's phase (daemon/phase.js): a command that changes something waits for a
// recovery to end and is refused once the daemon shuts down; its reply waits for the intent it
// recorded to be on disk (persistence.flush).
function createMethods ({ supervisor, logSink, metrics, shutdown, version, persistence = null, journal = null, phase = null }) {
  const journalMethods = journal ? require('./journal/methods').createJournalMethods({ supervisor, journal, target }) : null
  // Specs from the socket: every value checked as the CLI checks it, then the paths (async).
  const specsFor = async (params, { capacity = true } = {}) => {
    const specs = checkSpecs(params.specs)
    await checkPaths(specs)
    if (capacity) checkCapacity(specs, new Set(supervisor.apps.keys()))
    return specs
  }

  const progressTo = (conn) => (event) => conn.push('progress', event)
  const admit = () => phase?.admit()
  // the intent a command recorded is saved (coalesced) before it is acknowledged
  const saved = (fn) => async (...args) => {
    const result = await fn(...args)
    await persistence?.flush?.()
    return result
  }
  const changing = (methods) => Object.fromEntries(Object.entries(methods).map(([name, fn]) => [name, saved(async (params, conn) => {
    await admit()
    return fn(params, conn)
  })]))

  return {
    ping: () => ({ pong: true, pid: process.pid, version, uptime: Math.round(process.uptime() * 1000) }),

    // Long operations push a 'progress' event per process as it comes online (or fails).
    start: saved((params, conn) => {
      const force = optionalBoolean(params, 'force', false)
      const fromScript = params.fromScript ?? []
      if (!Array.isArray(fromScript) || fromScript.length > 1024 || !fromScript.every((n) => typeof n === 'string')) throw bad('`fromScript` to be a list of app names', fromScript)
      return inTurn(conn, async () => { await admit(); return specsFor(params) }, (specs) => supervisor.start(specs, { force, fromScript, onProgress: progressTo(conn) }))
    }),
    startTarget: saved((params, conn) => inTurn(conn, async () => { await admit(); return target(params) }, (name) => supervisor.startTarget(name, { onProgress: progressTo(conn) }))),
    stop: saved((params, conn) => inTurn(conn, async () => { await admit(); return target(params) }, (name) => supervisor.stop(name, { onProgress: progressTo(conn) }))),
    // specs: new specs for the apps (by name); rename: a new name for the one app the target names.
    restart: saved((params, conn) => {
      const check = async () => {
        await admit()
        const name = target(params)
        if (params.rename !== undefined && (typeof params.rename !== 'string' || !Array.isArray(params.specs) || params.specs.length !== 1)) {
          throw bad('`rename` to be the new name, with `specs` holding the one renamed spec', params.rename)
        }
        const specs = params.specs === undefined || params.specs === null ? null : await specsFor(params, { capacity: false }) // a restart adds no app
        if (params.rename !== undefined && specs[0].name !== params.rename) throw bad('`specs[0].name` to be the new name', specs[0].name)
        return { name, specs }
      }
      return inTurn(conn, check, ({ name, specs }) => params.rename !== undefined
        ? supervisor.rename(name, specs[0], { onProgress: progressTo(conn) })
        : supervisor.restart(name, { specs, onProgress: progressTo(conn) }))
    }),
    delete: saved((params, conn) => inTurn(conn, async () => { await admit(); return target(params) }, (name) => supervisor.delete(name, { onProgress: progressTo(conn) }))),
    // Figures older than ~2 s are sampled first; a `fields` list keeps the reply to what is shown.
    list: async (params) => {
      const fields = optionalFields(params)
      await metrics?.fresh()
      return supervisor.list({ fields })
    },
    show: async (params) => {
      const name = target(params)
      const fields = optionalFields(params)
      await metrics?.fresh(supervisor.resolve(name, { allowEmpty: true }).map((i) => i.id))
      const rows = supervisor.show(name, { fields })
      // the last exit or restart of each process, from the journal (docs/health.md)
      return journalMethods && wants(fields, 'lastEvent') ? journalMethods.withLastEvent(rows, supervisor.resolve(name, { allowEmpty: true })) : rows
    },
    // `xpm why`: the restart journal of an app or a process, newest first
    ...(journalMethods && { why: (params) => journalMethods.why(params) }),

    reload: saved((params, conn) => {
      const name = target(params)
      const check = async () => { await admit(); return params.specs === undefined || params.specs === null ? null : specsFor(params, { capacity: false }) }
      return inTurn(conn, check, (specs) => supervisor.reload(name, { specs, onStep: (step) => conn.push('reload.step', step) }))
    }),

    // Live process list (about 1 Hz, after each metrics sample) and log lines for `xpm monit`.
    // A processes subscriber keeps the metrics at the full rate until it goes (metrics.watch()).
    subscribe: async (params, conn) => {
      const topics = new Set(optionalSubset(params, 'topics', ['processes', 'logs'], ['processes']))
      const fields = optionalFields(params)
      if (topics.has('processes') && metrics) {
        const onSample = () => conn.push('processes', supervisor.list({ fields }))
        metrics.on('sample', onSample)
        const release = metrics.watch()
        conn.onClose(() => {
          metrics.off('sample', onSample)
          release()
        })
        await metrics.fresh()
      }
      if (topics.has('logs') && logSink) {
        const unsubscribe = logSink.subscribe({ names: null, ids: null, streams: new Set(['out', 'err']) }, (line) => conn.push('log', line))
        conn.onClose(unsubscribe)
      }
      const history = metrics ? metrics.recent(supervisor.allInstances().map((i) => i.id), { fields }) : {}
      return { processes: supervisor.list({ fields }), history }
    },

    // perFile: the last `lines` lines of each log file (PM2's way), in file order, and the files
    // with their line counts; otherwise the last `lines` lines of all of them together.
    logs: async (params, conn) => {
      if (!logSink) throw new XpmError('XPM_ERR_UNKNOWN_METHOD', 'This daemon has no log sink')
      const name = target(params, { optional: true })
      const filter = { names: null, ids: null, streams: new Set(optionalSubset(params, 'streams', ['out', 'err'], ['out', 'err'])) }
      const lines = lineCount(params)
      const follow = optionalBoolean(params, 'follow', true)
      const perFile = optionalBoolean(params, 'perFile', false)
      if (!isAll(name)) {
        // whole apps by name (their lines read back from files carry no id); a process id alone: its lines
        const targets = Array.isArray(name) ? name : [name]
        const instances = supervisor.resolve(name)
        const byId = targets.every((t) => /^\d+$/.test(t) && !supervisor.apps.has(t))
        if (byId) filter.ids = new Set(instances.map((i) => i.id))
        else filter.names = new Set(instances.map((i) => i.name))
      }
      if (!follow) return perFile ? logSink.tailPerFile(filter, lines) : { lines: await logSink.tail(filter, lines) }
      const onLine = (line) => conn.push('log', line)
      const history = await logSink.tailAndSubscribe(filter, lines, onLine, (unsubscribe) => conn.onClose(unsubscribe), { perFile })
      return perFile ? history : { lines: history }
    },

    flush: async (params) => {
      const name = target(params, { optional: true })
      if (isAll(name)) return logSink?.flush(null)
      const names = [...new Set(supervisor.resolve(name, { allowEmpty: true }).map((i) => i.name))]
      await Promise.all(names.map((n) => logSink?.flush(n)))
    },
    reloadLogs: () => logSink?.reopen(),
    ...persistence?.methods, // ackRestored
    ...(persistence?.methods && changing({
      save: (params, conn) => {
        optionalBoolean(params, 'force', false)
        return persistence.methods.save(params, conn)
      },
      resurrect: (params, conn) => persistence.methods.resurrect(params, conn),
      prepareUpdate: (params, conn) => persistence.methods.prepareUpdate(params, conn)
    })),
    ...changing(inTurnAll(require('./policies/methods').createPolicyMethods({ supervisor, target }))), // scale, sendSignal, reset

    // Replies at once; no command is taken from then on (see Supervisor.close).
    kill: (params, conn) => inTurn(conn, null, () => {
      phase?.shutDown()
      persistence?.noteKill?.(params) // `xpm update`'s kill says handover: true
      supervisor.beginClose()
      setImmediate(shutdown)
      return { stopping: supervisor.allInstances().length }
    })
  }
}

module.exports = { createMethods }
