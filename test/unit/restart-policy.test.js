'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { decideRestart, backoffDelay, DEFAULT_POLICY } = require('../../daemon/restart-policy')

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
