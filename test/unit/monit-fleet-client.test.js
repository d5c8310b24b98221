'use strict'

// monit across hosts (lib/cli/monit/fleet-client.js) over fake host clients: keys per host,
// requests split to their host with each host's own ids, pushes translated, a host that drops
// kept as unreachable rows, and 'close' only once every host is gone.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { fakeClock } = require('../helpers/fake-clock')
const { FleetClient, key } = require('../../lib/cli/monit/fleet-client')

function fakeClient (label, processes = [{ id: 0, name: 'api', status: 'online', cpu: 1 }]) {
  const client = new EventEmitter()
  client.requests = []
  client.request = async (method, params) => {
    client.requests.push({ method, params })
    if (method === 'subscribe') return { processes, history: {} }
    return { history: {} }
  }
  client.close = () => {}
  return client
}

function fakeFleet (labels) {
  const hosts = labels.map((label) => {
    const client = new EventEmitter()
    client.requests = []
    client.request = async (method, params) => {
      client.requests.push({ method, params })
      if (method === 'subscribe') return { processes: [{ id: 0, name: 'api', status: 'online', cpu: 1 }], history: { 0: [{ at: 1, cpu: 1 }] } }
      if (method === 'watch') return { history: Object.fromEntries(params.ids.map((id) => [id, [{ at: 2 }]])) }
      return { lines: [{ line: `${label} line` }] }
    }
    return { label, client, error: null }
  })
  return { hosts, close: () => { hosts.closed = true } }
}

test('requests go to each host with its own ids; pushes come back with keys per host', async () => {
  const fleet = fakeFleet(['h1', 'h2'])
  const c = new FleetClient(fleet)
  const reply = await c.request('subscribe', { topics: ['processes', 'logs'] })
  assert.deepEqual(reply.processes.map((p) => [p.id, p.host, p.hostId]), [[key(0, 0), 'h1', 0], [key(1, 0), 'h2', 0]])
  assert.deepEqual(Object.keys(reply.history).map(Number), [key(0, 0), key(1, 0)])
  const watched = await c.request('watch', { ids: [key(1, 0)] })
  assert.deepEqual(fleet.hosts[1].client.requests.at(-1), { method: 'watch', params: { ids: [0] } })
  assert.deepEqual(fleet.hosts[0].client.requests.at(-1), { method: 'watch', params: { ids: [] } })
  assert.deepEqual(Object.keys(watched.history).map(Number), [key(1, 0)])
  assert.deepEqual(await c.request('logs', { target: String(key(1, 0)), lines: 5, follow: false }), { lines: [{ line: 'h2 line' }] })
  assert.deepEqual(fleet.hosts[1].client.requests.at(-1).params, { target: '0', lines: 5, follow: false })
  const seen = []
  c.on('event', (e) => seen.push(e))
  fleet.hosts[1].client.emit('event', { event: 'processChanges', data: { rows: [{ id: 3, name: 'jobs' }], removed: [0] } })
  fleet.hosts[0].client.emit('event', { event: 'log', data: { id: 0, app: 'api', line: 'x' } })
  assert.deepEqual(seen[0], { event: 'processChanges', data: { rows: [{ id: key(1, 3), hostId: 3, host: 'h2', name: 'jobs' }], removed: [key(1, 0)] } })
  assert.equal(seen[1].data.id, key(0, 0))
})

test('a host that drops: its rows unreachable, figures cleared; close once every host is gone', async () => {
  const fleet = fakeFleet(['h1', 'h2'])
  const c = new FleetClient(fleet)
  await c.request('subscribe', {})
  const seen = []
  let closed = false
  c.on('event', (e) => seen.push(e))
  c.on('close', () => { closed = true })
  fleet.hosts[1].client.emit('close')
  assert.deepEqual(seen.at(-1).data.rows.map((r) => [r.id, r.status, r.cpu, r.pid]), [[key(1, 0), 'unreachable', null, null]])
  assert.deepEqual(seen.at(-1).data.removed, [])
  assert.deepEqual(c.unreachable, [{ label: 'h2', message: null }])
  assert.equal(closed, false)
  await c.request('watch', { ids: [key(0, 0), key(1, 0)] })
  assert.equal(fleet.hosts[1].client.requests.some((r) => r.method === 'watch'), false, 'a request to a host gone')
  fleet.hosts[0].client.emit('close')
  assert.equal(closed, true)
})

test('a host that drops is tried again, and once back its subscription watches what it watched', async () => {
  const clock = fakeClock()
  const fleet = fakeFleet(['h1', 'h2'])
  let up = false
  const made = []
  const reconnect = async (entry) => {
    if (!up) throw new Error(`${entry.label}: refused`)
    const c = fakeClient(entry.label, [{ id: 0, name: 'api', status: 'online' }, { id: 4, name: 'new', status: 'online' }])
    c.label = entry.label
    made.push(c)
    made.sort((a, b) => a.label.localeCompare(b.label))
    return c
  }
  const c = new FleetClient(fleet, { reconnect, timers: clock.timers })
  await c.request('subscribe', { topics: ['processes'], ids: [] })
  await c.request('watch', { ids: [key(1, 0)] })
  const seen = []
  let closed = false
  c.on('event', (e) => seen.push(e))
  c.on('close', () => { closed = true })
  fleet.hosts[1].client.emit('close')
  fleet.hosts[0].client.emit('close')
  assert.equal(closed, false, 'closed while hosts can be tried again')
  await clock.advance(1000)
  assert.equal(made.length, 0)
  up = true
  await clock.advance(2000)
  assert.equal(made.length, 2)
  assert.deepEqual(made.map((m) => m.requests[0].params.ids), [[], [0]], 'each host watches again what it watched')
  const back = seen.filter((e) => e.data.rows.some((r) => r.status === 'online')).map((e) => e.data.rows.map((r) => r.id)).sort((a, b) => a[0] - b[0])
  assert.deepEqual(back, [[key(0, 0), key(0, 4)], [key(1, 0), key(1, 4)]])
  assert.deepEqual(c.unreachable, [])
  made[1].emit('event', { event: 'processChanges', data: { rows: [{ id: 4, name: 'new', cpu: 9 }], removed: [] } })
  assert.equal(seen.at(-1).data.rows[0].id, key(1, 4))
  c.close()
})
