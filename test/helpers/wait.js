'use strict'

const net = require('node:net')
const { setTimeout: delay } = require('node:timers/promises')

// Polls `fn` until it returns a truthy value and resolves with it; rejects after `timeout` ms
// with the last error `fn` threw. The one way tests and benchmarks wait for a condition.
async function waitFor (fn, { timeout = 10000, interval = 20, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout
  let last
  while (Date.now() < deadline) {
    try {
      const value = await fn()
      if (value) return value
    } catch (err) {
      last = err
    }
    await delay(interval)
  }
  throw new Error(`Timed out after ${timeout} ms waiting for ${message}${last ? `: ${last.message}` : ''}`)
}

// A port that was free a moment ago on 127.0.0.1.
function freePort () {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

module.exports = { waitFor, freePort, delay }
