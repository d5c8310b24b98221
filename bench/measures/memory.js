'use strict'

const { spawn } = require('node:child_process')
const { alternate, rows } = require('../lib/series')
const { HELLO, startFleet, waitHttp } = require('../lib/apps')
const { benchEnv, freePort, httpGet, rss, delay, kill, isAlive, waitFor } = require('../lib/util')
const { Raw } = require('../lib/raw')

const MB = 1024 * 1024

// RSS of a plain `node hello.js` after a few requests: the floor for a worker's memory.
async function plainNodeRss (settleMs) {
  const port = await freePort()
  const child = spawn(process.execPath, [HELLO], { env: benchEnv({ PORT: String(port) }), stdio: 'ignore' })
  try {
    await waitHttp(port)
    for (let i = 0; i < 20; i++) await httpGet(port)
    await delay(settleMs)
    return rss(child.pid)
  } finally {
    kill(child.pid)
    await waitFor(() => !isAlive(child.pid), { timeout: 3000 }).catch(() => {})
  }
}

// Daemon memory idle and with 4 apps × 2, and each worker's overhead over plain node. Every
// round starts a fresh daemon. Raw column: one bare node:cluster primary (idle: no worker;
// busy: 2 workers), which is what xpm's daemon is compared with.
module.exports = {
  name: 'memory',
  title: 'Memory',
  description: 'VmRSS from /proc after 20 requests per app and a short settle. Each run starts a fresh daemon. Overhead = mean worker RSS − RSS of a plain `node hello.js` measured in the same run.',
  async run (ctx) {
    const settle = ctx.quick ? 1000 : 1500
    const names = ['xpm', 'pm2', 'raw']
    const result = await alternate(names.map((name) => ({ name })), ctx.rounds(5, 2), async ({ name }) => {
      const [c] = ctx.contenders([name])
      try {
        const plain = await plainNodeRss(settle)
        let idle, busy, workers
        if (c instanceof Raw) {
          await c.start({ name: 'idle', script: HELLO, instances: 0, env: { PORT: '0' } })
          await delay(settle)
          idle = rss(c.primaryPid('idle'))
          const port = await freePort()
          await c.start({ name: 'busy', script: HELLO, instances: 2, env: { PORT: String(port) } })
          await waitHttp(port)
          for (let i = 0; i < 20; i++) await httpGet(port)
          await delay(settle)
          busy = rss(c.primaryPid('busy'))
          workers = await c.workerPids('busy')
        } else {
          await c.ping()
          await delay(settle)
          idle = rss(c.daemonPid())
          const apps = await startFleet(c)
          for (const app of apps) for (let i = 0; i < 20; i++) await httpGet(app.port)
          await delay(settle)
          busy = rss(c.daemonPid())
          workers = []
          for (const app of apps) workers.push(...await c.workerPids(app.name))
        }
        const sizes = workers.map(rss).filter(Boolean)
        if (!idle || !busy || sizes.length === 0) throw new Error('could not read RSS')
        const avg = sizes.reduce((a, b) => a + b, 0) / sizes.length
        return { idle: idle / MB, busy: busy / MB, worker: avg / MB, overhead: (avg - plain) / MB, plain: plain / MB }
      } finally {
        await ctx.release(c)
      }
    }, ctx)
    return rows([
      { id: 'memory.idle', key: 'idle', label: 'daemon RSS, idle (raw: bare primary, no worker)', unit: 'MB' },
      { id: 'memory.busy', key: 'busy', label: 'daemon RSS, 4 apps × 2 (raw: one primary with 2 workers)', unit: 'MB' },
      { id: 'memory.worker', key: 'worker', label: 'RSS per hello worker', unit: 'MB' },
      { id: 'memory.overhead', key: 'overhead', label: 'per-worker overhead vs plain `node hello.js`', unit: 'MB' }
    ], result)
  }
}
