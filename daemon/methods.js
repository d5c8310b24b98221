'use strict'

const { checkSpecs, checkPaths, checkCapacity } = require('./check-specs')
const { wants } = require('../lib/shared/process-fields')
const { target, optionalBoolean, optionalFields } = require('./commands/params')
const { inTurn } = require('./commands/in-turn')
const lifecycle = require('./commands/lifecycle')
const { startOrRestart } = require('./commands/start-or-restart')
const reading = require('./commands/logs')
const { watch } = require('./commands/subscription')
const { sendSignal } = require('./commands/signal')
const { scale } = require('./commands/scale')
const { createJournalMethods } = require('./journal/methods')

// The socket's method table, whole: every method the daemon answers is a line below, and its
// handler is imported (daemon/commands/, the journal's `why`, persistence's save/resurrect/
// prepareUpdate/ackRestored). Each handler validates its params (daemon/commands/params.js).
//
// Wrappers say how a method runs:
//   changing: waits for a recovery to end, refused once the daemon shuts down (phase.admit()),
//             and its reply waits for the intent it recorded to be on disk (persistence.flush);
//   inTurn:   reaches the model in the order the connection sent it (commands/in-turn.js).
// A method whose part of the daemon is absent (no journal, no persistence: unit tests) is left
// out, and the server answers XPM_ERR_UNKNOWN_METHOD.
function createMethods ({ supervisor, logSink, metrics, shutdown, version, persistence = null, journal = null, phase = null, otel = null }) {
  const admit = () => phase?.admit()
  // Specs from the socket: every value checked as the CLI checks it, then the paths (async).
  const specsFor = async (params, { capacity = true } = {}) => {
    const specs = checkSpecs(params.specs)
    await checkPaths(specs)
    if (capacity) checkCapacity(specs, new Set(supervisor.apps.keys()))
    return specs
  }
  const ctx = { supervisor, logSink, metrics, admit, specsFor, otel }
  const journalMethods = journal ? createJournalMethods({ supervisor, journal, target }) : null
  const saved = (fn) => async (params, conn) => {
    const result = await fn(params, conn)
    await persistence?.flush?.()
    return result
  }
  // lifecycle commands admit themselves inside their check, in parallel with earlier commands
  const command = (fn) => saved((params, conn) => fn(ctx, params, conn))
  const changing = (fn) => saved(async (params, conn) => { await admit(); return fn(params, conn) })
  // admitted inside the turn's check, so a command takes its place in the connection's order at
  // once: a delete sent after it must not be handed to the model first (concurrency seed 1945458249)
  const changingInTurn = (fn) => saved((params, conn) => inTurn(conn, () => admit(), () => fn(params, conn)))
  const saving = persistence?.methods

  const table = {
    ping: () => ({ pong: true, pid: process.pid, version, uptime: Math.round(process.uptime() * 1000) }),

    start: command(lifecycle.start),
    startTarget: command(lifecycle.startTarget),
    stop: command(lifecycle.stop),
    restart: command(lifecycle.restart),
    delete: command(lifecycle.delete),
    reload: command(lifecycle.reload),
    // an ecosystem file's apps: started or restarted/reloaded as the daemon's registry says
    startOrRestart: command(startOrRestart),
    scale: changingInTurn((params) => scale(supervisor, params)),
    sendSignal: changingInTurn((params) => sendSignal(supervisor, target(params), params.signal)),
    // forget restart counts and crash history, so max_restarts and the backoff start afresh
    reset: changingInTurn((params) => supervisor.reset(target(params))),

    // Figures older than ~2 s are sampled first; a `fields` list keeps the reply to what is shown
    // (the table's has no agent figures: the agents are not sped up for it, metrics/attention.js).
    list: async (params) => {
      const fields = optionalFields(params)
      await metrics?.fresh(null, { agents: wants(fields, 'metrics') })
      return supervisor.list({ fields })
    },
    show: (params) => show(ctx, journalMethods, params),
    // `xpm why`: the restart journal of an app or a process, newest first
    why: journalMethods && ((params) => journalMethods.why(params)),

    subscribe: (params, conn) => reading.subscribe(ctx, params, conn),
    watch: metrics && ((params, conn) => watch(ctx, params, conn)),
    logs: (params, conn) => reading.logs(ctx, params, conn),
    flush: (params) => reading.flush(ctx, params),
    reloadLogs: () => logSink?.reopen(),

    ackRestored: saving?.ackRestored,
    save: saving && changing((params, conn) => {
      optionalBoolean(params, 'force', false)
      return saving.save(params, conn)
    }),
    resurrect: saving && changing((params, conn) => saving.resurrect(params, conn)),
    prepareUpdate: saving && changing((params, conn) => saving.prepareUpdate(params, conn)),

    // Replies at once; no command is taken from then on (see Supervisor.close).
    kill: (params, conn) => inTurn(conn, null, () => {
      phase?.shutDown()
      persistence?.noteKill?.(params) // `xpm update`'s kill says handover: true
      supervisor.beginClose()
      setImmediate(shutdown)
      return { stopping: supervisor.allInstances().length }
    })
  }
  return Object.fromEntries(Object.entries(table).filter(([, fn]) => typeof fn === 'function'))
}

async function show ({ supervisor, metrics, otel }, journalMethods, params) {
  const name = target(params)
  const fields = optionalFields(params)
  await metrics?.fresh(supervisor.resolve(name, { allowEmpty: true }).map((i) => i.id), { agents: wants(fields, 'metrics') })
  let rows = supervisor.show(name, { fields })
  // where the app's telemetry goes and how its last export went (docs/otel.md)
  if (otel && wants(fields, 'otel')) rows = rows.map((row) => ({ ...row, otel: otel.describe(supervisor.apps.get(row.name)?.spec) }))
  // the last exit or restart of each process, from the journal (docs/health.md)
  return journalMethods && wants(fields, 'lastEvent') ? journalMethods.withLastEvent(rows, supervisor.resolve(name, { allowEmpty: true })) : rows
}

module.exports = { createMethods }
