'use strict'

const { bad, target, optionalBoolean } = require('./params')
const { inTurn } = require('./in-turn')

// start, startTarget, stop, restart, delete and reload: each checks its params (and the specs'
// paths, async) first, then hands the command to the model in the connection's turn. Long
// operations push a 'progress' event per process as it comes online (or fails).
// ctx: { supervisor, admit, specsFor } (daemon/methods.js).

const progressTo = (conn) => (event) => conn.push('progress', event)

function start (ctx, params, conn) {
  const force = optionalBoolean(params, 'force', false)
  const fromScript = params.fromScript ?? []
  if (!Array.isArray(fromScript) || fromScript.length > 1024 || !fromScript.every((n) => typeof n === 'string')) throw bad('`fromScript` to be a list of app names', fromScript)
  return inTurn(conn, async () => { await ctx.admit(); return ctx.specsFor(params) },
    (specs) => ctx.supervisor.start(specs, { force, fromScript, onProgress: progressTo(conn) }))
}

// startTarget, stop, delete: a target, nothing else
const onTarget = (command) => (ctx, params, conn) => inTurn(conn, async () => { await ctx.admit(); return target(params) },
  (name) => ctx.supervisor[command](name, { onProgress: progressTo(conn) }))

// specs: new specs for the apps (by name); rename: a new name for the one app the target names.
function restart (ctx, params, conn) {
  const check = async () => {
    await ctx.admit()
    const name = target(params)
    if (params.rename !== undefined && (typeof params.rename !== 'string' || !Array.isArray(params.specs) || params.specs.length !== 1)) {
      throw bad('`rename` to be the new name, with `specs` holding the one renamed spec', params.rename)
    }
    const specs = params.specs === undefined || params.specs === null ? null : await ctx.specsFor(params, { capacity: false }) // a restart adds no app
    if (params.rename !== undefined && specs[0].name !== params.rename) throw bad('`specs[0].name` to be the new name', specs[0].name)
    return { name, specs }
  }
  return inTurn(conn, check, ({ name, specs }) => params.rename !== undefined
    ? ctx.supervisor.rename(name, specs[0], { onProgress: progressTo(conn) })
    : ctx.supervisor.restart(name, { specs, onProgress: progressTo(conn) }))
}

function reload (ctx, params, conn) {
  const name = target(params)
  const check = async () => { await ctx.admit(); return params.specs === undefined || params.specs === null ? null : ctx.specsFor(params, { capacity: false }) }
  return inTurn(conn, check, (specs) => ctx.supervisor.reload(name, { specs, onStep: (step) => conn.push('reload.step', step) }))
}

module.exports = {
  start,
  startTarget: onTarget('startTarget'),
  stop: onTarget('stop'),
  restart,
  delete: onTarget('delete'),
  reload
}
