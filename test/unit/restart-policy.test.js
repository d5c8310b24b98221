'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { decideRestart, countRestart, backoffDelay, DEFAULT_POLICY } = require('../../daemon/model/restart-policy')

const policy = (over = {}) => ({ ...DEFAULT_POLICY, ...over })
const crash = (uptime, code = 1) => ({ code, signal: null, uptime })

test('an unstable crash restarts with an exponential backoff that grows and is capped', () => {
  const p = policy({ expBackoffRestartDelay: 100, maxBackoffDelay: 1000, maxRestarts: 100 })
  let state = { crashTimes: [], unstableRuns: 0 }
  const delays = []
  for (let now = 0; now < 8; now++) {
    const d = decideRestart({ policy: p, exit: crash(10), ...state, now: now * 10 })
    assert.equal(d.action, 'restart')
    delays.push(d.delay)
    state = d
  }
  assert.deepEqual(delays, [100, 200, 400, 800, 1000, 1000, 1000, 1000])
})

test('a stable run resets the backoff', () => {
  const p = policy()
  const d1 = decideRestart({ policy: p, exit: crash(10), unstableRuns: 4, crashTimes: [], now: 0 })
  assert.equal(d1.delay, 1600)
  const d2 = decideRestart({ policy: p, exit: crash(5000), unstableRuns: 4, crashTimes: [], now: 0 })
  assert.equal(d2.delay, 0)
  assert.equal(d2.unstableRuns, 0)
})

test('more than max_restarts crashes inside the sliding window means errored', () => {
  const p = policy({ maxRestarts: 3, restartWindow: 10000 })
  let state = { crashTimes: [], unstableRuns: 0 }
  const actions = []
  for (let i = 0; i < 4; i++) {
    const d = decideRestart({ policy: p, exit: crash(10), ...state, now: i * 100 })
    actions.push(d.action)
    state = d
  }
  assert.deepEqual(actions, ['restart', 'restart', 'restart', 'errored'])
})

test('crashes that run longer than min_uptime still count in the window (PM2 loops forever here)', () => {
  const p = policy({ maxRestarts: 3, restartWindow: 60000, minUptime: 1000 })
  let state = { crashTimes: [], unstableRuns: 0 }
  let last
  for (let i = 0; i < 4; i++) {
    last = decideRestart({ policy: p, exit: crash(5000), ...state, now: i * 5000 })
    state = last
  }
  assert.equal(last.action, 'errored')
})

test('crashes spread wider than the window keep restarting', () => {
  const p = policy({ maxRestarts: 3, restartWindow: 10000 })
  let state = { crashTimes: [], unstableRuns: 0 }
  for (let i = 0; i < 20; i++) {
    const d = decideRestart({ policy: p, exit: crash(20000), ...state, now: i * 20000 })
    assert.equal(d.action, 'restart')
    state = d
  }
})

test('stop_exit_codes and autorestart off mean stopped', () => {
  assert.equal(decideRestart({ policy: policy({ stopExitCodes: [0, 4] }), exit: crash(10, 4), now: 0 }).action, 'stopped')
  assert.equal(decideRestart({ policy: policy({ autorestart: false }), exit: crash(10), now: 0 }).action, 'stopped')
})

test('restart_delay is added to the backoff', () => {
  const d = decideRestart({ policy: policy({ restartDelay: 500 }), exit: crash(10), now: 0 })
  assert.equal(d.delay, 600)
  assert.equal(backoffDelay(0, DEFAULT_POLICY), 0)
})

// Plays a crash loop against the policy with an injected clock: each run lasts `runMs`, then the
// process is restarted after the delay the policy gave. → the decisions and the time it ended.
function crashLoop (p, { runMs, max = 200 }) {
  let state = { crashTimes: [], unstableRuns: 0 }
  let now = 0
  const decisions = []
  for (let i = 0; i < max; i++) {
    now += runMs
    const d = decideRestart({ policy: p, exit: crash(runMs), ...state, now })
    decisions.push(d)
    if (d.action !== 'restart') break
    now += d.delay
    state = d
  }
  return { decisions, now, last: decisions.at(-1) }
}

test('defaults: an app that exits at once is errored after 16 restarts, about 2.5 minutes in', () => {
  const { decisions, now, last } = crashLoop(DEFAULT_POLICY, { runMs: 50 })
  assert.equal(last.action, 'errored')
  assert.equal(decisions.length, 17, '16 restarts, then errored at the 17th crash')
  assert.match(last.reason, /^17 crashes in a row, each less than min_uptime \(1s\) after its start \(max_restarts 16\)$/)
  // the backoff reaches its 15 s cap long before: the 60 s window alone never saw more than 11
  assert.ok(now > 140000 && now < 160000, `errored after ${now} ms`)
  assert.equal(Math.max(...decisions.filter((d) => d.crashTimes).map((d) => d.crashTimes.length)) <= 11, true)
  assert.deepEqual(decisions.slice(0, 9).map((d) => d.delay), [100, 200, 400, 800, 1600, 3200, 6400, 12800, 15000])
})

test('defaults: a crash every few seconds (stable runs) is errored by the window; every 4 s or more, never', () => {
  const every2s = crashLoop(DEFAULT_POLICY, { runMs: 2000 })
  assert.equal(every2s.last.action, 'errored')
  assert.match(every2s.last.reason, /^17 crashes within 60s \(max_restarts 16\)$/)
  assert.ok(every2s.now <= 60000 + 34000, `errored after ${every2s.now} ms`)
  const every4s = crashLoop(DEFAULT_POLICY, { runMs: 4000 })
  assert.equal(every4s.last.action, 'restart', 'at most 15 crashes fit in any 60 s window')
})

test('unstable runs in a row count however far apart they are; one stable run starts the count afresh', () => {
  const p = policy({ maxRestarts: 3, restartWindow: 1000, expBackoffRestartDelay: 0 })
  let state = { crashTimes: [], unstableRuns: 0 }
  const run = (uptime, now) => {
    const d = decideRestart({ policy: p, exit: crash(uptime), ...state, now })
    state = d
    return d.action
  }
  // 10 s apart: the 1 s window never holds more than one
  assert.deepEqual([run(10, 0), run(10, 10000), run(10, 20000)], ['restart', 'restart', 'restart'])
  assert.equal(run(5000, 30000), 'restart', 'a stable run')
  assert.equal(state.unstableRuns, 0)
  assert.deepEqual([run(10, 40000), run(10, 50000), run(10, 60000), run(10, 70000)], ['restart', 'restart', 'restart', 'errored'])
})

test('countRestart: the accounting policy restarts share, with their own name and no restart_delay', () => {
  const p = policy({ maxRestarts: 2, restartDelay: 500 })
  const first = countRestart({ policy: p, uptime: 0, now: 0, what: 'memory restarts', extraDelay: 0 })
  assert.deepEqual(first, { action: 'restart', delay: 100, crashTimes: [0], unstableRuns: 1 })
  const second = countRestart({ policy: p, uptime: 0, times: first.crashTimes, unstableRuns: 1, now: 10, what: 'memory restarts', extraDelay: 0 })
  assert.equal(second.delay, 200)
  const third = countRestart({ policy: p, uptime: 5000, times: second.crashTimes, unstableRuns: 2, now: 20, what: 'memory restarts', extraDelay: 0 })
  assert.deepEqual([third.action, third.reason], ['errored', '3 memory restarts within 60s (max_restarts 2)'])
  assert.equal(countRestart({ policy: p, uptime: 0, now: 0 }).delay, 600, 'crashes add restart_delay')
})

test('max_restarts 0: the first crash is errored', () => {
  const d = decideRestart({ policy: policy({ maxRestarts: 0 }), exit: crash(5000), now: 0 })
  assert.equal(d.action, 'errored')
})
