'use strict'

// The dashboard across hosts (lib/cli/web/fleet-hub.js): one Hub per host over fake daemon
// clients, on a fake clock. Frames carry their host; a host that drops is told as unreachable
// (the page's stream stays open, its rows are not removed), tried again with a growing wait, and
// comes back with a full frame and the rows the page has in view watched again.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { fakeClock } = require('../helpers/fake-clock')
const { Hub } = require('../../lib/cli/web/hub')
const { FleetHub, RETRY_MIN_MS } = require('../../lib/cli/web/fleet-hub')

function fakeHost (label, processes) {
  const host = { label, up: true, clients: [], connects: 0 }
  host.connect = async () => {
    host.connects++
    if (!host.up) throw Object.assign(new Error(`${label}: connection refused`), { code: 'XPM_ERR_HOST_UNREACHABLE' })
    const c = new EventEmitter()
    c.requests = []
    c.request = async (method, params) => {
      c.requests.push({ method, params })
      if (method === 'watch') return { history: {} }
      return { processes, history: {} }
    }
    c.close = () => {}
    c.drop = () => c.emit('close')
    host.clients.push(c)
    return c
  }
  return host
}

function page () {
  const s = { sent: [] }
  s.send = (event, data, json) => { s.sent.push({ event, data: data ?? JSON.parse(json) }); return 0 }
  s.buffered = () => 0
  s.onDrain = () => {}
  s.end = () => { s.ended = true }
  s.of = (event) => s.sent.filter((m) => m.event === event).map((m) => m.data)
  return s
}

const proc = (id, name) => ({ id, name, status: 'online', cpu: 1, memory: 100, uptime: 5000 })

function fleet (clock) {
  const hosts = [fakeHost('h1', [proc(0, 'api')]), fakeHost('h2', [proc(0, 'api'), proc(1, 'worker')]), fakeHost('h3', [proc(0, 'cron')])]
  const timers = clock.timers
  const hub = new FleetHub({ lanes: hosts.map((h) => ({ label: h.label, connect: h.connect })), timers, makeHub: (connect, historyBudget) => new Hub({ connect, now: clock.now, timers, historyBudget }) })
  return { hosts, hub }
}

test('a page gets every host\'s rows, each frame with its host, and its own stream id', async () => {
  const clock = fakeClock()
  const { hosts, hub } = fleet(clock)
  const p = page()
  await hub.attach(p)
  assert.deepEqual(p.sent[0], { event: 'hosts', data: { sink: p.id, hosts: ['h1', 'h2', 'h3'].map((label) => ({ label, state: 'connecting', message: null })) } })
  const full = p.of('full')
  assert.deepEqual(full.map((f) => [f.host, f.sink, f.rows.length]), [['h1', p.id, 1], ['h2', p.id, 2], ['h3', p.id, 1]])
  assert.deepEqual(p.of('host').map((h) => [h.label, h.state]), [['h1', 'up'], ['h2', 'up'], ['h3', 'up']])
  hosts[1].clients[0].emit('event', { event: 'processChanges', data: { rows: [proc(1, 'worker')].map((r) => ({ ...r, cpu: 50 })), removed: [] } })
  await clock.advance(1000)
  const diffs = p.of('diff')
  assert.equal(diffs.length, 1)
  assert.equal(diffs[0].host, 'h2')
  assert.equal(diffs[0].rows[0][0], 1)
  hub.detach(p)
  hub.close()
})

test('the hosts share one budget of chart points', () => {
  const hub = new FleetHub({ lanes: ['a', 'b', 'c', 'd'].map((label) => ({ label, connect: async () => { throw new Error('no') } })) })
  assert.deepEqual(hub.lanes.map((l) => l.hub.historyBudget), [50000, 50000, 50000, 50000])
  hub.close()
})

test('a host that drops is unreachable, not gone: the stream stays, it is tried again, and comes back watched', async () => {
  const clock = fakeClock()
  const { hosts, hub } = fleet(clock)
  const p = page()
  await hub.attach(p)
  assert.equal(hub.show(p.id, { h2: [1] }), true)
  await clock.advance(10)
  assert.deepEqual(hosts[1].clients[0].requests.at(-1), { method: 'watch', params: { ids: [1] } })

  hosts[1].up = false
  hosts[1].clients[0].drop()
  await clock.advance(10)
  assert.equal(p.ended, undefined, 'the page\'s stream ended with one host')
  assert.deepEqual(p.of('host').at(-1), { label: 'h2', state: 'unreachable', message: 'the xpm daemon went away' })
  assert.equal(p.of('diff').some((d) => d.host === 'h2' && d.removed.length), false, 'its processes were sent as removed')

  // tried again after RETRY_MIN_MS, then after twice that
  const before = hosts[1].connects
  await clock.advance(RETRY_MIN_MS)
  assert.equal(hosts[1].connects, before + 1)
  assert.deepEqual(p.of('host').at(-1), { label: 'h2', state: 'unreachable', message: 'h2: connection refused' })
  await clock.advance(RETRY_MIN_MS)
  assert.equal(hosts[1].connects, before + 1, 'the second wait is longer')
  hosts[1].up = true
  await clock.advance(RETRY_MIN_MS)
  assert.equal(hosts[1].connects, before + 2)
  assert.deepEqual(p.of('host').at(-1), { label: 'h2', state: 'up', message: null })
  assert.equal(p.of('full').at(-1).host, 'h2')
  await clock.advance(10)
  const again = hosts[1].clients.at(-1).requests
  assert.deepEqual([...new Set(again.flatMap((r) => r.params.ids))], [1], 'what the page shows is watched again')
  // the other hosts were never touched
  assert.equal(hosts[0].connects, 1)
  assert.equal(hosts[2].connects, 1)
  hub.detach(p)
  assert.equal(clock.pending > 0, true)
  hub.close()
})

test('no page open: a host that is down is not tried again until one opens', async () => {
  const clock = fakeClock()
  const { hosts, hub } = fleet(clock)
  hosts[2].up = false
  const p = page()
  await hub.attach(p)
  assert.deepEqual(p.of('host').find((h) => h.label === 'h3'), { label: 'h3', state: 'unreachable', message: 'h3: connection refused' })
  hub.detach(p)
  const tries = hosts[2].connects
  await clock.advance(60000)
  assert.equal(hosts[2].connects, tries)
  hub.close()
})
