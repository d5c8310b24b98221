'use strict'

const { alternate, rows } = require('../lib/series')
const { HELLO, startFleet, waitHttp } = require('../lib/apps')
const { kill, delay, httpGet } = require('../lib/util')

// Probes every `interval` ms without waiting for earlier probes: a connection accepted while no
// worker is left may hang, and must not hide the first answer of the new worker.
function firstNewAnswer (port, old, { interval = 2, timeout = 20000 } = {}) {
  return new Promise((resolve, reject) => {
    let done = false
    let inflight = 0
    const finish = (err, ms) => {
      if (done) return
      done = true
      clearInterval(timer)
      clearTimeout(deadline)
      err ? reject(err) : resolve(ms)
    }
    const t0 = performance.now()
    const probe = () => {
      if (inflight >= 100) return
      inflight++
      httpGet(port, { timeout: 3000 }).then((body) => {
        if (body !== old) finish(null, performance.now() - t0)
      }, () => {}).finally(() => { inflight-- })
    }
    const timer = setInterval(probe, interval)
    const deadline = setTimeout(() => finish(new Error(`no new worker answered on port ${port} within ${timeout} ms`)), timeout)
    probe()
  })
}

// SIGKILL of the only worker of a 1-instance cluster app (the port closes), then the time until
// a new worker answers on the port. Each worker has run at least 2 s first, so no contender
// treats the crash as an unstable restart.
module.exports = {
  name: 'crash',
  title: 'Crash recovery (-i 1)',
  description: 'SIGKILL of the only worker of a 1-instance cluster app (which closes the port), then probes every 2 ms until a new pid answers. Each worker ran ≥ 2 s first.',
  async run (ctx) {
    const all = ctx.contenders(['xpm', 'pm2', 'raw'])
    const apps = new Map()
    for (const c of all) {
      const [app] = await startFleet(c, { prefix: 'crash', count: 1, instances: 1, script: HELLO })
      apps.set(c.name, { ...app, upSince: performance.now() })
    }
    const result = await alternate(all, ctx.rounds(7, 3), async (c) => {
      const app = apps.get(c.name)
      const wait = 2000 - (performance.now() - app.upSince)
      if (wait > 0) await delay(wait)
      const old = String(await waitHttp(app.port))
      const [pid] = await c.workerPids(app.name)
      if (!pid || String(pid) !== old) throw new Error(`worker pid ${pid} does not match the answer ${old}`)
      const answered = firstNewAnswer(app.port, old)
      kill(pid, 'SIGKILL')
      const ms = await answered
      app.upSince = performance.now()
      return { ms }
    }, ctx)
    return rows([
      { id: 'crash.ms', key: 'ms', label: 'SIGKILL → a new worker answers', unit: 'ms' }
    ], result)
  }
}
