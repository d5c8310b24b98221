'use strict'

// A stop's signals take turns of the event loop (daemon/model/stop-process.js, lib/shared/turn-budget.js):
// a signal deferred to a later turn goes to the process only if it has not exited meanwhile (its
// pid may name another process by then), and SIGKILL never overtakes the stop signal. A real
// ProcessHandle over a fake child; process.kill is mocked, so no real pid is ever signalled.
const test = require('node:test')
const assert = require('node:assert/strict')
const { ProcessHandle } = require('../../daemon/launchers/handle')
const { stopProcess } = require('../../daemon/model/stop-process')
const { TurnBudget } = require('../../lib/shared/turn-budget')

function setup (t) {
  const killed = []
  t.mock.method(process, 'kill', (pid, sig) => { killed.push([pid, sig]) })
  const handle = new ProcessHandle({ child: { pid: 4_000_001, send: null, connected: false } })
  // a budget already spent this turn: every signal of the stop waits for a later turn
  const turns = new TurnBudget({ budgetMs: 0, minPerTurn: 1 })
  turns.run(() => {})
  return { handle, killed, turns }
}

test('a stop signal deferred to a later turn is not sent once the process has exited meanwhile', async (t) => {
  const { handle, killed, turns } = setup(t)
  const stopped = stopProcess(handle, { killTimeout: 1000, turns })
  for (let i = 0; i < 100 && !turns.queue.length; i++) await Promise.resolve()
  assert.equal(turns.queue.length, 1, 'the stop reached its signal, queued for a later turn')
  handle.markExited(0, null)
  assert.deepEqual(await stopped, { code: 0, signal: null })
  assert.deepEqual(killed, [], 'its pid is never signalled after its exit')
})

test('a process that ignores the stop signal gets it, then SIGKILL at the deadline, in that order', async (t) => {
  const { handle, killed, turns } = setup(t)
  process.kill.mock.mockImplementation((pid, sig) => {
    killed.push([pid, sig])
    if (sig === 'SIGKILL') setImmediate(() => handle.markExited(null, 'SIGKILL'))
  })
  const stopped = stopProcess(handle, { killTimeout: 30, turns })
  assert.deepEqual(await stopped, { code: null, signal: 'SIGKILL' })
  assert.deepEqual(killed, [[4_000_001, 'SIGINT'], [4_000_001, 'SIGKILL']])
})

// Before: the drain messages of a stop of many went out in one turn (each wakes its process,
// which takes a core from the daemon): `delete all` of 300 idle processes held the loop 1.4 s.
test('the drain (the handle\'s release) waits for its turn as the signals do', async (t) => {
  const { handle, turns } = setup(t)
  let released = 0
  handle.release = () => { released++; return Promise.resolve() }
  const stopped = stopProcess(handle, { killTimeout: 1000, turns })
  assert.equal(released, 0, 'not released in the turn whose budget is spent')
  assert.equal(turns.queue.length, 1)
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(released, 1, 'released in the next turn')
  handle.markExited(0, null)
  await stopped
})
