'use strict'

// The in-worker agent, driven without the daemon: real Node children forked with the agent
// preloaded, exactly as the fork launcher does.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { fork } = require('node:child_process')
const path = require('node:path')
const { setTimeout: delay } = require('node:timers/promises')
const { waitFor } = require('../helpers/wait')

const AGENT = path.join(__dirname, '..', '..', 'lib', 'agent', 'agent.js')
const FIXTURES = path.join(__dirname, '..', 'fixtures')
const children = new Set()

function start (fixture, env = {}) {
  const childEnv = { ...process.env, XPM_METRICS_INTERVAL: '250', PORT: '0', ...env }
  delete childEnv.NODE_TEST_CONTEXT
  const child = fork(path.join(FIXTURES, fixture), [], {
    execArgv: ['--require', AGENT],
    env: childEnv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc']
  })
  children.add(child)
  // A report carries only the figures that changed: `reports` holds each with the figures the
  // daemon then knows (merged), `raw` what was sent.
  const reports = []
  const raw = []
  const others = []
  let known = {}
  child.on('message', (msg) => {
    if (msg?.['xpm:agent'] !== 'metrics') return others.push(msg)
    raw.push(msg)
    known = { ...known, ...msg.data }
    reports.push({ ...msg, data: known })
  })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { child, reports, raw, others, exited }
}

after(() => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try { process.kill(child.pid, 'SIGKILL') } catch {}
    }
  }
})

test('a worker that blocks its loop 200 ms every second reports p99 >= 150 ms', async () => {
  const { reports } = start('block-loop.js', { XPM_METRICS_INTERVAL: '1000' })
  await waitFor(() => reports.length >= 3, { timeout: 15000 })
  const p99s = reports.map((r) => r.data.elP99)
  assert.ok(p99s.some((p) => p >= 150), `p99 per report: ${p99s}`)
  assert.ok(reports.some((r) => r.data.elMax >= 150), `max per report: ${reports.map((r) => r.data.elMax)}`)
})

test('an idle worker reports p99 under 20 ms and full figures', async () => {
  const { reports } = start('idle-http.js')
  // Three reports in a row: on a loaded 2-core CI machine the OS scheduler alone can delay one
  // timer by tens of ms, which a single report would faithfully show.
  const quiet = await waitFor(() => {
    const last = reports.slice(-3)
    return last.length === 3 && last.every((r) => r.data.elP99 < 20) && last
  }, { timeout: 15000 })
  for (const { data } of quiet) {
    assert.ok(data.elP99 < 20, `p99 ${data.elP99}`)
    for (const key of ['heapUsed', 'heapTotal', 'elP50', 'elP90', 'elP95', 'elP99', 'elMax', 'elu']) {
      assert.equal(typeof data[key], 'number', key)
    }
    // on Linux the daemon reads the RSS from /proc (the agent's read could abort the app)
    if (process.platform === 'linux') assert.equal(data.rss ?? null, null)
    else assert.equal(typeof data.rss, 'number')
    assert.ok(data.elu >= 0 && data.elu < 0.5, `elu ${data.elu}`)
    assert.ok(data.heapUsed > 0 && data.heapUsed <= data.heapTotal)
  }
})

test('a worker that allocates shows heap growth across reports', async () => {
  const { reports } = start('allocate-heap.js', { RATE_MB: '4' })
  await waitFor(() => reports.length >= 8)
  const first = reports[0].data.heapUsed
  const last = reports.at(-1).data.heapUsed
  assert.ok(last - first > 2 * 1024 * 1024, `heapUsed ${first} -> ${last}`)
})

test('a busy worker reports high event-loop utilization', async () => {
  const { reports } = start('busy-loop.js')
  await waitFor(() => reports.length >= 3)
  assert.ok(reports.at(-1).data.elu > 0.8, `elu ${reports.map((r) => r.data.elu)}`)
})

test('an ES-module app reports metrics too', async () => {
  const { reports } = start('idle-esm.mjs')
  await waitFor(() => reports.length >= 2)
  assert.equal(typeof reports[0].data.heapUsed, 'number')
})

test('XPM_AGENT=0 turns the agent off', async () => {
  const { child, reports, others } = start('own-messages.js', { XPM_AGENT: '0', XPM_METRICS_INTERVAL: '100' })
  child.send('ping')
  await waitFor(() => others.length === 1)
  // Absence needs time to show: five report intervals.
  await delay(500)
  assert.equal(reports.length, 0)
})

test("without XPM_METRICS_INTERVAL the agent follows the daemon's schedule: silent until told, then every interval, only what changed; the app never sees the schedule", async () => {
  const { child, raw, others } = start('own-messages.js', { XPM_METRICS_INTERVAL: '' })
  // Booted plus the one-second start delay, and more: no schedule, no report.
  await delay(1500) // observing that nothing is reported for a bounded time
  assert.equal(raw.length, 0)
  child.send({ cmd: 'NODE_XPM_METRICS', intervalMs: 200 })
  await waitFor(() => raw.length >= 6, { timeout: 10000 })
  const keys = ['heapUsed', 'heapTotal', 'rss', 'elP50', 'elP90', 'elP95', 'elP99', 'elMax', 'elu']
  assert.deepEqual(Object.keys(raw[0].data).sort(), [...keys].sort(), 'the first report has every figure')
  assert.ok(raw.slice(1).some((r) => Object.keys(r.data).length < keys.length), `later reports carry what changed: ${JSON.stringify(raw.map((r) => Object.keys(r.data)))}`)
  // Rate 0: reports stop (the histogram is off too).
  child.send({ cmd: 'NODE_XPM_METRICS', intervalMs: 0 })
  await delay(300) // a report already on its way lands; then nothing more for a bounded time
  const count = raw.length
  await delay(800) // observing that no report comes
  assert.equal(raw.length, count)
  // The app's own message channel saw none of it.
  child.send('ping')
  const own = () => others.filter((m) => m['xpm:agent'] === undefined)
  await waitFor(() => own().length >= 1)
  assert.deepEqual(own(), [{ echo: 'ping' }])
})

test('issue 23: a new process sends heap and event-loop figures soon after boot, not one slow interval (30 s) later', async () => {
  const { child, raw, others } = start('idle-http.js', { XPM_METRICS_INTERVAL: '' })
  // As the daemon does when it forks a process nobody watches.
  child.send({ cmd: 'NODE_XPM_METRICS', intervalMs: 30000 })
  await waitFor(() => others.some((m) => m['xpm:agent'] === 'booted'), { message: 'booted' })
  // The deadline is a third of the interval: a report now can only be the early first one.
  await waitFor(() => raw.length >= 1, { timeout: 10000, message: 'a first report before the first interval' })
  const first = raw[0].data
  // rss: none from the agent on Linux (the daemon reads it from /proc; issue 23, an app that
  // closed fd 1 and 2)
  for (const key of ['heapUsed', 'heapTotal', 'elP50', 'elP99', 'elMax', 'elu']) {
    assert.equal(typeof first[key], 'number', `${key} in ${JSON.stringify(first)}`)
  }
  assert.equal(raw.length, 1, 'then the slow schedule')
})
