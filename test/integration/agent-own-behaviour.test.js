'use strict'

// The agent never changes what an app does on its own: an app that disconnects its own IPC
// channel keeps running (only the daemon going away ends it), and one that closes its stdout and
// stderr is not aborted by the agent's metrics (libuv's RSS read opens /proc/self/stat, gets fd 1
// and asserts when closing it: SIGABRT, which `xpm why` took for the OOM killer).
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { fork } = require('node:child_process')
const path = require('node:path')
const { setTimeout: delay } = require('node:timers/promises')

const AGENT = path.join(__dirname, '..', '..', 'lib', 'agent', 'agent.js')
const pids = new Set()
after(() => { for (const pid of pids) try { process.kill(pid, 'SIGKILL') } catch {} })

// A Node app (code for `node -e`) under the agent, as a fork-mode worker is.
function start (code, env = {}) {
  const childEnv = { ...process.env, ...env }
  delete childEnv.NODE_TEST_CONTEXT
  const child = fork('-e', [code], { execArgv: ['--require', AGENT], env: childEnv, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] })
  pids.add(child.pid)
  child.on('message', () => {})
  child.on('error', () => {})
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { child, exited }
}

function withDeadline (promise, ms, what) {
  return Promise.race([promise, delay(ms, null, { ref: false }).then(() => { throw new Error(`${what} within ${ms} ms`) })])
}

test('an app that calls process.disconnect() runs on: the agent does not exit it (it used to, with code 0, a second later)', async () => {
  // works 2.5 s after its disconnect, then exits with its own code
  const { exited } = start('process.disconnect(); setTimeout(() => process.exit(7), 2500)', { XPM_METRICS_INTERVAL: '100' })
  assert.deepEqual(await withDeadline(exited, 20000, 'the app to exit'), { code: 7, signal: null })
})

test('an app that closed fd 1 and 2 is not aborted by the agent\'s metrics', async () => {
  const { exited } = start("require('node:fs').closeSync(1); require('node:fs').closeSync(2); setTimeout(() => process.exit(5), 1500)", { XPM_METRICS_INTERVAL: '100' })
  assert.deepEqual(await withDeadline(exited, 20000, 'the app to exit'), { code: 5, signal: null })
})
