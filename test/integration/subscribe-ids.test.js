'use strict'

// Issue 27: a dashboard that names the processes it shows (`subscribe` with `ids`, then `watch`
// as it scrolls) gets those in full and the others as summary rows, against a real daemon with
// real workers. Which processes are sampled at which rate is the unit tests' (metrics-schedule).
const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, waitFor, fixture } = require('../helpers/xpm')
const { connectOnce } = require('../../lib/cli/client')
const { homePaths } = require('../../lib/shared/paths')

// Apps a, b and c online and sampled once, and a client on the daemon's socket.
async function threeAppsAndAClient (t) {
  const h = createHome(t)
  for (const name of ['a', 'b', 'c']) {
    const res = await h.run(['start', fixture('idle.js'), '--name', name])
    assert.equal(res.code, 0, res.stderr)
  }
  await waitFor(async () => (await h.jlist()).filter((p) => p.status === 'online' && p.memory > 0).length === 3, { timeout: 20000, message: 'three processes online and sampled' })
  const client = await connectOnce(homePaths(h.home).socket)
  t.after(() => client.close())
  return { h, client }
}

const FIELDS = ['id', 'name', 'status', 'pid', 'cpu', 'memory', 'metrics.heapUsed']

test('subscribe with ids: full rows for those, summary rows for the others; watch moves the full rows and sends their history', async (t) => {
  const { client } = await threeAppsAndAClient(t)
  const pushes = []
  client.on('event', ({ event, data }) => { if (event === 'processes') pushes.push(data) })

  const reply = await client.request('subscribe', { topics: ['processes'], fields: FIELDS, ids: [1] })
  const byId = (rows) => Object.fromEntries(rows.map((r) => [r.id, r]))
  let rows = byId(reply.processes)
  assert.deepEqual(Object.keys(rows[1]).sort(), ['cpu', 'id', 'memory', 'metrics', 'name', 'pid', 'status'])
  assert.ok(rows[1].pid > 0)
  for (const id of [0, 2]) {
    assert.deepEqual(Object.keys(rows[id]).sort(), ['cpu', 'id', 'memory', 'name', 'status'], `process ${id} is a summary row`)
    assert.ok(rows[id].memory > 0, 'its figures from its last sample')
  }
  assert.deepEqual(Object.keys(reply.history), ['1'])

  await waitFor(() => pushes.length > 0, { timeout: 5000, message: 'a push' })
  rows = byId(pushes.at(-1))
  assert.ok(rows[1].pid > 0)
  assert.equal(rows[0].pid, undefined)

  const watched = await client.request('watch', { ids: [0, 1] })
  assert.deepEqual(Object.keys(watched.history), ['0'], 'the history of the id newly watched')
  const before = pushes.length
  await waitFor(() => pushes.length > before, { timeout: 5000, message: 'a push after watch' })
  rows = byId(pushes.at(-1))
  assert.ok(rows[0].pid > 0 && rows[1].pid > 0)
  assert.equal(rows[2].pid, undefined)

  await client.request('watch', { ids: null })
  const all = pushes.length
  await waitFor(() => pushes.length > all, { timeout: 5000, message: 'a push after watching all' })
  assert.ok(pushes.at(-1).every((r) => r.pid > 0))
})

test('subscribe with changes: after each round the watched row, the others only when they change (a stop, a delete)', async (t) => {
  const { h, client } = await threeAppsAndAClient(t)
  const pushes = []
  client.on('event', ({ event, data }) => {
    assert.notEqual(event, 'processes', 'no whole lists with changes: true')
    if (event === 'processChanges') pushes.push(data)
  })
  const reply = await client.request('subscribe', { topics: ['processes'], fields: FIELDS, ids: [1], changes: true })
  assert.deepEqual(reply.processes.map((r) => r.id), [0, 1, 2], 'the reply has every row')
  await waitFor(() => pushes.length >= 3, { timeout: 10000, message: 'three pushes' })
  for (const push of pushes.slice(1)) assert.ok(push.rows.some((r) => r.id === 1 && r.pid > 0), 'the watched row, in full')
  // once the lease of the last `jlist` is over (10 s), the others are on the 30 s schedule: a
  // push is the watched row alone
  await waitFor(() => pushes.at(-1).rows.map((r) => r.id).join() === '1', { timeout: 20000, message: 'a push of the watched row alone' })

  assert.equal((await h.run(['stop', 'a'])).code, 0)
  await waitFor(() => pushes.some((p) => p.rows.some((r) => r.id === 0 && r.status === 'stopped')), { timeout: 10000, message: 'the stop of process 0 pushed' })
  assert.equal((await h.run(['delete', 'c'])).code, 0)
  await waitFor(() => pushes.some((p) => p.removed.includes(2)), { timeout: 10000, message: 'process 2 in removed' })
})

test('watch without a processes subscription, and ids that are not process ids, are XPM_ERR_BAD_ARGUMENT', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  const client = await connectOnce(homePaths(h.home).socket)
  t.after(() => client.close())
  await assert.rejects(client.request('watch', { ids: [0] }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  await assert.rejects(client.request('subscribe', { topics: ['processes'], ids: 'all' }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  await assert.rejects(client.request('subscribe', { topics: ['processes'], ids: [-1] }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  await client.request('subscribe', { topics: ['logs'] })
  await assert.rejects(client.request('watch', { ids: [0] }), { code: 'XPM_ERR_BAD_ARGUMENT' }, 'a logs subscription has no processes to watch')
  await client.request('subscribe', { topics: ['processes'], ids: [] })
  await assert.rejects(client.request('watch', { ids: [1.5] }), { code: 'XPM_ERR_BAD_ARGUMENT' })
  assert.deepEqual(await client.request('watch', { ids: [] }), { history: {} })
})
