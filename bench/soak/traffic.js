'use strict'

const http = require('node:http')

// Keep-alive HTTP load at a fixed pace (a request every `everyMs` on each of `sockets`
// connections), not a closed loop as fast as it goes: the soak's two cores are for the daemons.
// Counts answers and failures by cause (a reset during a reload or a scale is a failure).
function paceLoad (port, { sockets = 4, everyMs = 40 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets })
  const stats = { ok: 0, failed: 0, errors: {} }
  const fail = (why) => { stats.failed++; stats.errors[why] = (stats.errors[why] || 0) + 1 }
  const timers = []
  for (let i = 0; i < sockets; i++) {
    let busy = false
    timers.push(setInterval(() => {
      if (busy) return
      busy = true
      const req = http.get({ host: '127.0.0.1', port, path: '/', agent, timeout: 10000 }, (res) => {
        res.resume()
        res.on('end', () => { busy = false; res.statusCode === 200 ? stats.ok++ : fail(`status ${res.statusCode}`) })
      })
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', (err) => { busy = false; fail(err.code || err.message) })
    }, everyMs))
  }
  return { stats, stop () { for (const t of timers) clearInterval(t); agent.destroy() } }
}

// GET /metrics every `everyMs`; counts answers, failures and the slowest.
function scrapeLoop (port, { everyMs = 5000 } = {}) {
  const stats = { ok: 0, failed: 0, errors: {}, slowestMs: 0 }
  const timer = setInterval(() => {
    const t0 = Date.now()
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', agent: false, headers: { 'x-prometheus-scrape-timeout-seconds': '10' }, timeout: 10000 }, (res) => {
      res.resume()
      res.on('end', () => {
        stats.slowestMs = Math.max(stats.slowestMs, Date.now() - t0)
        if (res.statusCode === 200) stats.ok++
        else { stats.failed++; stats.errors[res.statusCode] = (stats.errors[res.statusCode] || 0) + 1 }
      })
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', (err) => { stats.failed++; stats.errors[err.code || err.message] = (stats.errors[err.code || err.message] || 0) + 1 })
  }, everyMs)
  return { stats, stop () { clearInterval(timer) } }
}

module.exports = { paceLoad, scrapeLoop }
