'use strict'

// The Instance's decisions as pure functions (daemon/model/instance-exit.js, instance-intent.js,
// instance-readiness.js, instance-replace.js): a plain state, an event and a clock in, the
// effects the Instance applies out. No Supervisor, no timer, no process.
const test = require('node:test')
const assert = require('node:assert/strict')
const { decideExit, exitEvent } = require('../../daemon/model/instance-exit')
const { decideIntent, intentSignalOf } = require('../../daemon/model/instance-intent')
const { decideReadiness, decideLaunchReady, readinessWait } = require('../../daemon/model/instance-readiness')
const { payloadProblems } = require('../../daemon/events')
const { decideSpareForked, decideSpareFailed, decideSpareReady } = require('../../daemon/model/instance-replace')

const clock = { now: 10_000, wall: 1_700_000_000_000 }
const handle = (extra = {}) => ({ pid: 42, exited: false, isSpare: false, notReady: null, forkedAt: 4_000, stopCause: null, signalSent: null, ...extra })

const SPEC = { name: 'api', minUptime: 1000, maxRestarts: 15, restartDelay: 0 }
const BASE = { id: 3, name: 'api', index: 1, label: 'api[1]', instance: { me: true }, status: 'online', spare: null, startedAt: 0, givingUp: null, crashTimes: [], unstableRuns: 0, wanted: true, removing: false, readiness: null }

function state (extra = {}) {
  return { ...BASE, handle: handle(), retiring: new Set(), ...extra, spec: { ...SPEC, ...extra.spec } }
}
const kinds = (effects) => effects.map((e) => e[0] === 'emit' || e[0] === 'status' ? `${e[0]} ${e[1]}` : e[0])

test('exit of the current process after a stable run: restart after the policy\'s delay, counted, the reason a crash', () => {
  const s = state()
  const { effects, outcome } = decideExit(s, { handle: s.handle, exit: { code: 1, signal: null } }, clock)
  assert.deepEqual(outcome, { role: 'current', next: 'restart', delay: 0, reason: 'crash (exit code 1)' })
  assert.deepEqual(kinds(effects), ['emit unforked', 'set', 'status waiting restart', 'restartAfter'])
  const set = effects[1][1]
  assert.deepEqual(set.lastExit, { code: 1, signal: null, at: clock.wall, uptime: 10_000, reason: 'crash (exit code 1)' })
  assert.deepEqual([set.onlineSince, set.unstableRuns, set.crashTimes, set.lastRestartDelay], [0, 0, [10_000], 0])
  assert.deepEqual(effects.at(-1), ['restartAfter', 0, 'crash (exit code 1)'])
  assert.deepEqual(s.crashTimes, [], 'the state it was given is left as it was')
})

test('exit of the current process too often in a row: errored, with the crash and the policy\'s reason', () => {
  const s = state({ startedAt: 9_900, unstableRuns: 15 })
  const { effects, outcome } = decideExit(s, { handle: s.handle, exit: { code: null, signal: 'SIGSEGV' } }, clock)
  assert.equal(outcome.next, 'errored')
  assert.match(outcome.reason, /^crash \(signal SIGSEGV\); 16 crashes in a row/)
  assert.deepEqual(kinds(effects), ['emit unforked', 'set', 'status errored'])
})

test('exit with a stop_exit_code: stopped for good, the intent follows (by the app itself), finished only on exit 0', () => {
  for (const [code, finished] of [[0, true], [3, false]]) {
    const s = state({ spec: { stopExitCodes: [0, 3] } })
    const { effects, outcome } = decideExit(s, { handle: s.handle, exit: { code, signal: null } }, clock)
    assert.deepEqual(outcome, { role: 'current', next: 'stopped', reason: `exit code ${code} is in stop_exit_codes` })
    assert.deepEqual(kinds(effects), ['emit unforked', 'set', 'intent', 'set', 'status stopped'])
    assert.deepEqual(effects[2][1], { wanted: false, by: 'finished' })
    assert.deepEqual(effects[3][1], { endedItself: true, finished })
  }
})

test('exit while a policy gives up: errored with the policy\'s reason; while stopping: nothing follows', () => {
  const giving = state({ givingUp: 'port taken: port 3000 is app "a"\'s' })
  const gaveUp = decideExit(giving, { handle: giving.handle, exit: { code: 0, signal: null } }, clock)
  assert.deepEqual(gaveUp.outcome, { role: 'current', next: 'errored', reason: giving.givingUp })
  assert.equal(gaveUp.effects[1][1].givingUp, null)
  const stopping = state({ status: 'stopping' })
  const stopped = decideExit(stopping, { handle: stopping.handle, exit: { code: 0, signal: 'SIGINT' } }, clock)
  assert.deepEqual(stopped.outcome, { role: 'current', next: null })
  assert.deepEqual(kinds(stopped.effects), ['emit unforked', 'set'])
})

test('exit of a spare or a retiring process: it only leaves the slot', () => {
  const spare = handle({ pid: 43, isSpare: true })
  const s = state({ spare })
  assert.deepEqual(decideExit(s, { handle: spare, exit: { code: 1, signal: null } }, clock).effects.slice(1), [['set', { spare: null }], ['emit', 'change']])
  const old = handle({ pid: 41 })
  const r = state({ retiring: new Set([old]) })
  const { effects, outcome } = decideExit(r, { handle: old, exit: { code: 0, signal: 'SIGINT' } }, clock)
  assert.deepEqual(outcome, { role: 'retiring', next: null })
  assert.deepEqual(effects.slice(1), [['unretire', old], ['emit', 'change']])
})

test('a process stopped as not ready in time: its run counts as unstable, and the reason says so', () => {
  const s = state({ handle: handle({ notReady: 'not ready within 2 s' }) })
  const { outcome, effects } = decideExit(s, { handle: s.handle, exit: { code: null, signal: 'SIGINT' } }, clock)
  assert.equal(outcome.reason, 'not ready in time')
  assert.equal(effects[1][1].unstableRuns, 1)
  const event = exitEvent(s, s.handle, { code: null, signal: 'SIGINT' }, outcome, clock)
  assert.deepEqual([event.ranMs, event.notReady, event.role], [6_000, 'not ready within 2 s', 'current'])
})

test('intent: a slot no longer wanted cancels its pending restart and aborts its work, unless it ended itself', () => {
  const s = state()
  const stop = decideIntent(s, { wanted: false, by: 'delete', removing: true })
  assert.deepEqual(kinds(stop), ['set', 'set', 'cancelRestart', 'abortIntent', 'emit intent'])
  assert.deepEqual(stop[0][1], { removing: true })
  assert.equal(stop[3][1].code, 'XPM_ERR_CANCELLED')
  assert.equal(stop[3][1].message, 'api[1] was deleted meanwhile')
  assert.deepEqual(stop.at(-1)[2], { id: 3, name: 'api', instance: 1, wanted: false })
  assert.deepEqual(kinds(decideIntent(s, { wanted: false, by: 'finished' })), ['set', 'set', 'emit intent'])
  assert.deepEqual(decideIntent(s, { wanted: true }), [['set', { removing: false }]], 'no change: nothing said')
  const up = decideIntent(state({ wanted: false }), { wanted: true, by: 'start' })
  assert.deepEqual(kinds(up), ['set', 'set', 'renewIntent', 'emit intent'])
  assert.deepEqual(up[1][1], { wanted: true, finished: false, endedItself: false })
})

test('intent signal: a slot not wanted up gets an aborted signal from the start', () => {
  const controller = new AbortController()
  assert.equal(intentSignalOf(state(), controller), controller.signal)
  const signal = intentSignalOf(state({ wanted: false }), controller)
  assert.equal(signal.aborted, true)
  assert.equal(signal.reason.message, 'api[1] is not wanted up')
})

test('readiness: a changed verdict on the current process is recorded and said; the same one, or another process\'s, is not', () => {
  const s = state()
  const effects = decideReadiness(s, { handle: s.handle, ready: false, reason: 'HTTP 503' }, clock)
  assert.deepEqual(effects[0], ['set', { readiness: { ready: false, reason: 'HTTP 503', since: clock.wall } }])
  assert.deepEqual(kinds(effects), ['set', 'emit readiness', 'emit change'])
  assert.deepEqual(payloadProblems('readiness', effects[1][2], s.instance), [], 'the catalogue\'s shape (daemon/events.js)')
  assert.deepEqual(decideReadiness(s, { handle: s.handle, ready: true }, clock), [], 'ready is what it was')
  assert.deepEqual(decideReadiness(s, { handle: handle(), ready: false }, clock), [], 'not the current process')
  const launching = state({ status: 'launching' })
  assert.deepEqual(decideLaunchReady(launching, { handle: launching.handle, how: { warning: 'slow', warningKind: 'listen' } }, clock),
    [['set', { onlineSince: clock.wall }], ['status', 'online', { warning: 'slow', warningKind: 'listen' }]])
  assert.deepEqual(decideLaunchReady(state(), { handle: handle(), how: {} }, clock), [], 'another process took the slot')
  const wait = readinessWait({ ...s, context: { prober: null }, app: { listens: true }, spec: { ...s.spec, listenTimeout: 3000, minUptime: 5000 } }, { pid: 7, announcesListening: true })
  assert.deepEqual([wait.expectListen, wait.settleMs, wait.label, wait.probe], [true, 1000, 'api[1] (pid 7)', null])
})

test('replace: the spare is shown, dropped on failure (said unless cancelled), and on success takes the slot', () => {
  const spare = handle({ pid: 50 })
  assert.deepEqual(decideSpareForked(state(), { spare }), [['set', { spare }], ['emit', 'change']])
  const withSpare = state({ spare })
  const failed = decideSpareFailed(withSpare, { spare, oldPid: 42, cancelled: false, cause: 'reload', message: 'exited' })
  assert.deepEqual(kinds(failed), ['set', 'emit replace-failed'])
  assert.deepEqual(failed[1][2], { id: 3, name: 'api', instance: 1, pid: 50, oldPid: 42, cause: 'reload', reason: 'exited' })
  assert.deepEqual(payloadProblems('replace-failed', failed[1][2], withSpare.instance), [], 'the catalogue\'s shape (daemon/events.js)')
  assert.deepEqual(decideSpareFailed(withSpare, { spare, oldPid: 42, cancelled: true }), [['set', { spare: null }]])
  const { effects, previous } = decideSpareReady(withSpare, { spare, reason: 'reload' }, clock)
  assert.equal(previous, withSpare.handle)
  assert.deepEqual(kinds(effects), ['cancelRestart', 'set', 'emit process', 'retire', 'emit status', 'noteRestart'])
  assert.deepEqual(effects[1][1], { spare: null, handle: spare, givingUp: null, startedAt: clock.now, onlineSince: clock.wall, readiness: null })
  const waiting = decideSpareReady(state({ status: 'waiting restart', spare, handle: handle({ exited: true }) }), { spare, reason: 'reload' }, clock)
  assert.deepEqual(kinds(waiting.effects), ['cancelRestart', 'set', 'emit process', 'status launching', 'status online', 'emit status', 'noteRestart'])
})
