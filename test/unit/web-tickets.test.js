'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { Tickets } = require('../../lib/cli/web/tickets')

test('a stream ticket opens one stream, once, within its time', () => {
  let now = 1000
  const tickets = new Tickets({ now: () => now, ttl: 30000 })
  const a = tickets.issue()
  const b = tickets.issue()
  assert.notEqual(a, b)
  assert.ok(a.length >= 24)
  assert.equal(tickets.redeem(a), true)
  assert.equal(tickets.redeem(a), false) // spent
  now += 30000
  assert.equal(tickets.redeem(b), false) // expired
  assert.equal(tickets.redeem(b), false)
  for (const bad of [undefined, null, '', 'guess', 42]) assert.equal(tickets.redeem(bad), false)
})

test('expired tickets are dropped and at most 256 wait', () => {
  let now = 0
  const tickets = new Tickets({ now: () => now, ttl: 1000 })
  const first = tickets.issue()
  for (let i = 0; i < 300; i++) tickets.issue()
  assert.equal(tickets.open.size, 256)
  assert.equal(tickets.redeem(first), false) // the oldest gave way
  now += 1000
  tickets.issue()
  assert.equal(tickets.open.size, 1)
})
