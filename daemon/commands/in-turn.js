'use strict'

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

module.exports = { inTurn }
