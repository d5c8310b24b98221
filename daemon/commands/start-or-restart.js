'use strict'

const { bad, target } = require('./params')
const { inTurn } = require('./in-turn')
const { checkCapacity } = require('../check-specs')
const { STATUS } = require('../model/process-state')
const { refuseModeChangeOnReload } = require('../model/listen-mode')

// What the CLI waits for a reload (a reload has no expected duration; the CLI waited this long
// for its own `reload` request before this one existed).
const RELOAD_WAIT_MS = 10 * 60 * 1000

// `xpm restart|reload <ecosystem file>` and PM2's startOrRestart/startOrReload, in one request
// that the daemon answers from its own registry (the CLI used to decide from a list it had read
// before, in up to five round trips). In the connection's turn, each of the file's specs goes:
//   - to a start, when the daemon does not manage the app (for a reload, also when none of its
//     processes runs: every one stopped or errored), as `xpm start` would;
//   - to a restart or reload of the app with that spec, otherwise.
// Params: specs (the file's apps), mode ('restart' | 'reload'), target (optional: more apps, as
// named on the command line, restarted or reloaded along), targetSpecs (optional: new specs for
// those, from restart's options or --update-env; never started).
// Reply: { started: start's results, startedNames, target: the names restarted or reloaded,
// restarted: restart's result or null, reloaded: reload's results or null, reloadError: a failed
// reload's error (its code, message and details) or null, so the starts are reported with it }.
function startOrRestart (ctx, params, conn) {
  const mode = params.mode
  if (mode !== 'restart' && mode !== 'reload') throw bad('`mode` to be "restart" or "reload"', mode)
  const others = params.target === undefined ? [] : [].concat(target(params))
  const check = async () => {
    await ctx.admit()
    const specs = await ctx.specsFor(params, { capacity: false })
    const targetSpecs = params.targetSpecs === undefined ? [] : await ctx.specsFor({ specs: params.targetSpecs }, { capacity: false })
    return { specs, targetSpecs }
  }
  return inTurn(conn, check, ({ specs, targetSpecs }) => run(ctx.supervisor, conn, { specs, targetSpecs, mode, others }))
}

// Called in the connection's turn: the split reads the registry as the earlier commands left it.
function run (supervisor, conn, { specs, targetSpecs, mode, others }) {
  const toStart = []
  const known = []
  for (const spec of specs) (startsAnew(supervisor.apps.get(spec.name), mode) ? toStart : known).push(spec)
  checkCapacity(toStart, new Set(supervisor.apps.keys()))
  if (mode === 'reload') refuseModeChangeOnReload(supervisor.apps, [...known, ...targetSpecs]) // nothing starts either
  const names = [...new Set([...known.map((s) => s.name), ...others])]
  const seen = new Set(known.map((s) => s.name))
  const newSpecs = [...known, ...targetSpecs.filter((s) => !seen.has(s.name))]
  const onProgress = (event) => conn.push('progress', event)
  const starting = toStart.length ? supervisor.start(toStart, { onProgress }) : Promise.resolve([])
  const changing = names.length ? change(supervisor, conn, { mode, names, newSpecs, onProgress }) : Promise.resolve({})
  return Promise.all([starting, changing]).then(([started, changed]) => ({
    started,
    startedNames: toStart.map((s) => s.name),
    target: names,
    restarted: null,
    reloaded: null,
    reloadError: null,
    ...changed
  }))
}

function startsAnew (app, mode) {
  if (!app || app.deleted) return true
  return mode === 'reload' && app.instances.every((i) => i.status === STATUS.STOPPED || i.status === STATUS.ERRORED)
}

async function change (supervisor, conn, { mode, names, newSpecs, onProgress }) {
  const target = names.length === 1 ? names[0] : names
  const specs = newSpecs.length ? newSpecs : null
  if (mode === 'restart') return { restarted: await supervisor.restart(target, { specs, onProgress }) }
  conn.push('progress', { type: 'begin', expectMs: RELOAD_WAIT_MS })
  try {
    return { reloaded: await supervisor.reload(target, { specs, onStep: (step) => conn.push('reload.step', step) }) }
  } catch (err) {
    if (typeof err.toJSON !== 'function') throw err
    return { reloadError: err.toJSON() }
  }
}

module.exports = { startOrRestart, RELOAD_WAIT_MS }
