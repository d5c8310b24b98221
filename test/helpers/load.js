'use strict'

const http = require('node:http')

// Fires GET requests at 127.0.0.1:port from `concurrency` loops until stop() is called.
// keepAlive false: a new connection per request; true: each loop reuses one keep-alive socket.
// Counts successes and failures (connection errors, resets, non-200 answers) and the pids seen.
// Bounded whatever happens: the loops stop by themselves after maxMs or maxRequests (a test that
// failed before its stop() must not leave a load running that keeps the test file alive).
// untilRefused: a loop whose connection is refused stops (the app is gone): spinning on refused
// connects would churn thousands of ephemeral ports a second under the other tests' freePort().
function startLoad (port, { concurrency = 4, keepAlive = false, path = '/', timeout = 10000, maxMs = 120000, maxRequests = 200000, untilRefused = false } = {}) {
  const agent = new http.Agent({ keepAlive, maxSockets: concurrency })
  const stats = { ok: 0, failed: 0, errors: {}, pids: new Set(), versions: new Set() }
  const state = { running: true }
  const once = () => new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => {
        if (res.statusCode === 200) {
          stats.ok++
          try {
            const json = JSON.parse(body)
            if (json.pid) stats.pids.add(json.pid)
            if (json.version) stats.versions.add(json.version)
          } catch {}
        } else fail(`status ${res.statusCode}`)
        resolve()
      })
      res.on('error', (err) => { fail(err.code || err.message); resolve() })
    })
    req.setTimeout(timeout, () => req.destroy(new Error('timeout')))
    req.on('error', (err) => { fail(err.code || err.message); resolve() })
  })
  const fail = (why) => {
    stats.failed++
    stats.errors[why] = (stats.errors[why] || 0) + 1
  }
  const deadline = Date.now() + maxMs
  let sent = 0
  const loops = Array.from({ length: concurrency }, async () => {
    while (state.running && Date.now() < deadline && sent++ < maxRequests) {
      const refused = stats.errors.ECONNREFUSED || 0
      await once()
      if (untilRefused && (stats.errors.ECONNREFUSED || 0) > refused) break
    }
  })
  Promise.all(loops).then(() => agent.destroy())
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
