'use strict'

const { alternate, rows } = require('../lib/series')
const { HELLO, startFleet, waitHttp } = require('../lib/apps')
const { freePort, run } = require('../lib/util')

// CLI latency: `list` with 4 apps × 2 running, `ping`, and `start` of a 2-instance app until it
// answers HTTP. The raw column is the floor: `node -e 0` for list/ping, a bare cluster primary
// for start.
module.exports = {
  name: 'cli',
  title: 'CLI latency',
  description: 'Wall time of the CLI process, from spawn to exit, with 4 hello apps × 2 workers running. `start` runs until a fresh connection gets an HTTP answer; the app is deleted after each run (not timed).',
  async run (ctx) {
    const [xpm, pm2, raw] = ctx.contenders(['xpm', 'pm2', 'raw'])
    const all = [xpm, pm2, raw]
    const bare = async () => (await run(process.execPath, ['-e', '0'])).ms
    ctx.log('  starting 4 apps × 2 under xpm and pm2')
    await startFleet(xpm)
    await startFleet(pm2)
    // First calls warm the disk cache and the daemons.
    for (const c of [xpm, pm2]) { await c.list(); await c.ping() }

    const n = ctx.rounds(10, 5)
    const latency = await alternate(all, n, async (c) => ({
      list: c === raw ? await bare() : (await c.list()).ms,
      ping: c === raw ? await bare() : (await c.ping()).ms
    }), ctx)

    const starts = await alternate(all, ctx.rounds(5, 3), async (c, round) => {
      const port = await freePort()
      const name = `start${round}`
      const t0 = performance.now()
      await c.start({ name, script: HELLO, instances: 2, env: { PORT: String(port) } })
      const cliMs = performance.now() - t0
      await waitHttp(port, { interval: 5 })
      const ms = performance.now() - t0
      await c.remove(name)
      return c === raw ? { ms } : { ms, cliMs }
    }, ctx)

    const merged = { series: {}, errors: { ...latency.errors, ...starts.errors } }
    for (const c of all) merged.series[c.name] = { ...latency.series[c.name], ...starts.series[c.name] }
    return rows([
      { id: 'cli.list', key: 'list', label: '`list` with 4 apps × 2 (raw: `node -e 0`)', unit: 'ms' },
      { id: 'cli.ping', key: 'ping', label: '`ping` (raw: `node -e 0`)', unit: 'ms' },
      { id: 'cli.start', key: 'ms', label: '`start -i 2` until HTTP answers (raw: cluster primary)', unit: 'ms' },
      { id: 'cli.startCli', key: 'cliMs', label: '`start -i 2` until the CLI returns', unit: 'ms' }
    ], merged)
  }
}
