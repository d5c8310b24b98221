'use strict'

const http = require('node:http')

// Closed-loop GET requests at 127.0.0.1:port from `concurrency` loops until stop().
// keepAlive true: each loop reuses one keep-alive socket; false: a new connection per request.
// Any connection error, reset, timeout or non-200 answer counts as failed.
function startLoad (port, { concurrency = 20, keepAlive = false, timeout = 10000 } = {}) {
  const agent = new http.Agent({ keepAlive, maxSockets: concurrency })
  const stats = { ok: 0, failed: 0, errors: {} }
  const state = { running: true }
  const fail = (why) => {
    stats.failed++
    stats.errors[why] = (stats.errors[why] || 0) + 1
  }
  const once = () => new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume()
      res.on('end', () => {
        if (res.statusCode === 200) stats.ok++
        else fail(`status ${res.statusCode}`)
        resolve()
      })
      res.on('error', (err) => { fail(err.code || err.message); resolve() })
    })
    req.setTimeout(timeout, () => req.destroy(new Error('timeout')))
    req.on('error', (err) => { fail(err.code || err.message); resolve() })
  })
  const loops = Array.from({ length: concurrency }, async () => {
    while (state.running) await once()
  })
  return {
    stats,
    async stop () {
      state.running = false
      await Promise.all(loops)
      agent.destroy()
      return stats
    }
  }
}

module.exports = { startLoad }
