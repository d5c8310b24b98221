'use strict'

// The agent must never change how an app lives: it does not keep it alive, does not touch its
// IPC traffic, does not ride along into the app's own children, and ends an orphaned fork-mode
// worker while leaving a draining cluster worker alone.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { fork } = require('node:child_process')
const cluster = require('node:cluster')
const path = require('node:path')
const { setTimeout: delay } = require('node:timers/promises')
const { waitFor } = require('../helpers/wait')

const AGENT = path.join(__dirname, '..', '..', 'lib', 'agent', 'agent.js')
const FIXTURES = path.join(__dirname, '..', 'fixtures')
const pids = new Set()

function childEnv (env) {
  const out = { ...process.env, XPM_METRICS_INTERVAL: '100', PORT: '0', ...env }
  delete out.NODE_TEST_CONTEXT
  return out
}

function start (fixture, env = {}) {
  const child = fork(path.join(FIXTURES, fixture), [], {
    execArgv: ['--require', AGENT],
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc']
  })
  pids.add(child.pid)
  const reports = []
  const others = []
  const booted = []
  child.on('message', (msg) => (msg?.['xpm:agent'] === 'metrics' ? reports : msg?.['xpm:agent'] === 'booted' ? booted : others).push(msg))
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { child, reports, others, booted, exited }
}

function withDeadline (promise, ms, what) {
  return Promise.race([promise, delay(ms, null, { ref: false }).then(() => { throw new Error(`${what} within ${ms} ms`) })])
}

after(() => {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
})

test('an app that does nothing exits by itself with the agent loaded and IPC open', async () => {
  const { exited } = start('do-nothing.js', { XPM_METRICS_INTERVAL: '' })
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 0, signal: null })
})

test("an app's own process.on('message') receives its messages while the agent reports", async () => {
  const { child, reports, others, booted } = start('own-messages.js')
  await waitFor(() => reports.length >= 2)
  assert.equal(booted.length, 1, 'one booted message, after the entry ran')
  for (const n of [1, 2, 3]) child.send({ hello: n })
  await waitFor(() => others.length >= 3)
  await waitFor(() => reports.length >= 5)
  assert.deepEqual(others, [{ echo: { hello: 1 } }, { echo: { hello: 2 } }, { echo: { hello: 3 } }])
})

test("the agent does not load into the app's own forked children", async () => {
  const { reports, others } = start('forks-own-child.js')
  const info = await waitFor(() => others.find((m) => m.childPid))
  pids.add(info.childPid)
  assert.ok(!info.execArgv.some((a) => a.includes('agent.js')), `execArgv ${info.execArgv}`)
  // The child would report every 100 ms; five of the parent's reports is plenty of time.
  await waitFor(() => reports.length >= 5)
  assert.equal(others.filter((m) => m.fromChild).length, 0)
})

test('a fork-mode worker exits with code 0 once its IPC channel goes away', async () => {
  const { child, reports, exited } = start('drain-on-disconnect.js')
  await waitFor(() => reports.length >= 1)
  child.disconnect()
  // The app alone would exit 7 after 2.5 s; the agent ends it 1 s after noticing.
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 0, signal: null })
})

test('a cluster worker reports metrics, and drains on disconnect without the agent ending it', async () => {
  cluster.setupPrimary({ exec: path.join(FIXTURES, 'drain-on-disconnect.js'), execArgv: ['--require', AGENT], silent: true })
  const worker = cluster.fork(childEnv({ DRAIN_MS: '1500' }))
  pids.add(worker.process.pid)
  const reports = []
  worker.on('message', (msg) => { if (msg?.['xpm:agent'] === 'metrics') reports.push(msg) })
  const exited = new Promise((resolve) => worker.process.once('exit', (code, signal) => resolve({ code, signal })))
  await waitFor(() => reports.length >= 2)
  worker.disconnect()
  assert.deepEqual(await withDeadline(exited, 5000, 'no exit'), { code: 7, signal: null })
})
