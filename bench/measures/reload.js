'use strict'

const { alternate, rows } = require('../lib/series')
const { HELLO, startFleet } = require('../lib/apps')
const { startLoad } = require('../lib/client-load')
const { delay } = require('../lib/util')

// `reload` of a 2-instance hello app while clients hammer it: failed requests and how long the
// reload command takes. Two client kinds: keep-alive connections and a new connection per
// request. The app has no shutdown handler (the common case).
module.exports = {
  name: 'reload',
  title: 'Reload under load (-i 2)',
  description: "`reload` of a 2-worker hello app (no shutdown handler) while closed-loop clients send GET requests; a failure is any connection error, reset, timeout or non-200. Duration is the reload command's wall time.",
  async run (ctx) {
    const all = ctx.contenders(['xpm', 'pm2'])
    const ports = new Map()
    for (const c of all) {
      const [app] = await startFleet(c, { prefix: 'web', count: 1, script: HELLO })
      ports.set(c.name, app)
    }
    const out = []
    const clients = [
      { kind: 'keepalive', label: '50 keep-alive connections', concurrency: 50, keepAlive: true },
      { kind: 'newconn', label: '10 clients, new connection per request', concurrency: 10, keepAlive: false }
    ]
    for (const client of clients) {
      const errorKinds = {}
      const result = await alternate(all, ctx.rounds(5, 2), async (c) => {
        const app = ports.get(c.name)
        const load = startLoad(app.port, { concurrency: client.concurrency, keepAlive: client.keepAlive, timeout: 3000 })
        let reloadMs
        try {
          await delay(300)
          reloadMs = (await c.reload(app.name)).ms
          await delay(300)
        } finally {
          await load.stop()
        }
        if (load.stats.ok === 0) throw new Error('no request succeeded')
        for (const [why, n] of Object.entries(load.stats.errors)) {
          const kinds = (errorKinds[c.name] ||= {})
          kinds[why] = (kinds[why] || 0) + n
        }
        return { failed: load.stats.failed, ms: reloadMs, ok: load.stats.ok }
      }, ctx)
      const kinds = Object.entries(errorKinds).map(([name, k]) => `${name}: ${Object.entries(k).map(([why, n]) => `${why} × ${n}`).join(', ')}`)
      out.push(...rows([
        { id: `reload.${client.kind}.failed`, key: 'failed', label: `failed requests, ${client.label}`, unit: 'count', note: kinds.length ? `Failures with ${client.label}, all runs: ${kinds.join('; ')}` : undefined },
        { id: `reload.${client.kind}.ms`, key: 'ms', label: `reload duration, ${client.label}`, unit: 'ms' }
      ], result))
    }
    return out
  }
}
