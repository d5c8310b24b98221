'use strict'

// The agent's drain (lib/agent/drain.js) on real servers of this process. It patches
// node:http for the rest of the process, so these tests run in a file of their own.
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { startDraining } = require('../../lib/agent/drain')

test('every ask for the drained report is answered, also one made after it was given', async () => {
  const drain = startDraining({ servers: new Set(), idleMs: 50 })
  const first = new Promise((resolve) => drain.whenDrained(resolve))
  const second = new Promise((resolve) => drain.whenDrained(resolve))
  await Promise.all([first, second])
  await new Promise((resolve) => drain.whenDrained(resolve))
})

test('after the drain closed a server, the app\'s own close() calls back without an error and no second close event', async () => {
  const server = http.createServer((req, res) => res.end('ok'))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  let closeEvents = 0
  server.on('close', () => closeEvents++)
  const drain = startDraining({ servers: new Set([server]), idleMs: 50 })
  drain.closeServers({ signal: 'SIGWINCH', holdMs: 10 })
  assert.equal(server.listening, false, 'the drain stopped accepting')
  const err = await new Promise((resolve) => server.close(resolve))
  assert.equal(err, undefined)
  const again = await new Promise((resolve) => server.close(resolve)) // and once more, closed by now
  assert.equal(again, undefined)
  assert.equal(closeEvents, 1)
})
