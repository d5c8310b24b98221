'use strict'

// Exit on the daemon's disconnect does not depend on metrics (issue 14): with XPM_AGENT_METRICS=0 a
// fork-mode worker still exits once its IPC channel closes, and the agent's 'disconnect'
// listener never keeps an app alive nor changes how the app's own listeners keep it alive.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { fork } = require('node:child_process')
const path = require('node:path')
const { setTimeout: delay } = require('node:timers/promises')
const { waitFor } = require('../helpers/wait')
const { onChannelClosed } = require('../../lib/agent/exit-on-disconnect')

const AGENT = path.join(__dirname, '..', '..', 'lib', 'agent', 'agent.js')
const FIXTURES = path.join(__dirname, '..', 'fixtures')
const pids = new Set()

function start (fixture, env = {}) {
  const childEnv = { ...process.env, XPM_AGENT_METRICS: '0', PORT: '0', ...env }
  delete childEnv.NODE_TEST_CONTEXT
  const child = fork(path.join(FIXTURES, fixture), [], { execArgv: ['--require', AGENT], env: childEnv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  pids.add(child.pid)
  const messages = []
  child.on('message', (msg) => messages.push(msg))
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { child, messages, exited }
}

function withDeadline (promise, ms, what) {
  return Promise.race([promise, delay(ms, null, { ref: false }).then(() => { throw new Error(`${what} within ${ms} ms`) })])
}

after(() => {
  for (const pid of pids) try { process.kill(pid, 'SIGKILL') } catch {}
})

test('metrics off: a fork-mode worker exits with code 0 once its IPC channel goes away', async () => {
  const { child, messages, exited } = start('drain-on-disconnect.js')
  await waitFor(() => messages.some((m) => m?.['xpm:agent'] === 'booted'), { message: 'booted' })
  child.disconnect()
  // The app alone would exit 7 after 2.5 s; the agent ends it 1 s after the channel closed.
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 0, signal: null })
})

test('metrics off: an app that does nothing still exits by itself (the listener keeps nothing alive)', async () => {
  const { exited } = start('do-nothing.js')
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 0, signal: null })
})

test("the app's own message listener keeps it alive exactly as without the agent", async () => {
  const { child, messages, exited } = start('ipc-listeners.js')
  await waitFor(() => messages.includes('ready'), { message: 'ready' })
  child.send('ping')
  await waitFor(() => messages.includes('pong'), { message: 'pong' })
  // Once the app lets go of its listener, nothing is left: it exits by itself.
  child.send('release')
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 0, signal: null })
})

test('an app that removes every disconnect listener (the agent\'s too) keeps its own message listener counted', async () => {
  const { child, messages, exited } = start('ipc-listeners.js')
  await waitFor(() => messages.includes('ready'), { message: 'ready' })
  child.send('drop-disconnect')
  await waitFor(() => messages.includes('dropped'), { message: 'dropped' })
  // Had the removal counted the agent's listener out twice, the channel would be unref'd and
  // the app would exit here while still listening.
  child.send('ping')
  await waitFor(() => messages.includes('pong'), { message: 'pong after the removal' })
  child.send('release')
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 0, signal: null })
})

test('onChannelClosed: without a channel nothing is installed; without the ref counter it polls process.connected', async () => {
  assert.equal(onChannelClosed(() => {}, { proc: {} }), null)
  const proc = { send () {}, connected: true, channel: {} }
  let called = 0
  assert.deepEqual(onChannelClosed(() => called++, { proc, pollMs: 10 }), { kind: 'poll' })
  proc.connected = false
  await waitFor(() => called === 1, { message: 'the poll to notice' })
})
