'use strict'

const { alternate, rows } = require('../lib/series')
const { HELLO, CPU, startFleet } = require('../lib/apps')
const { loadRun } = require('../lib/loadgen')

// Requests per second and p99 latency through a 2-worker cluster, for a hello app and a
// CPU-bound app, under xpm, PM2 and a bare node:cluster primary. All three run side by side
// (idle while the others are measured); runs alternate.
module.exports = {
  name: 'throughput',
  title: 'Cluster throughput (2 workers)',
  description: 'Both apps run with 2 workers under every contender at once (the others idle while one is measured). The cpu app hashes 1,000 × SHA-256 per request.',
  async run (ctx) {
    const all = ctx.contenders(['xpm', 'pm2', 'raw'])
    const ports = new Map()
    for (const c of all) {
      const [hello] = await startFleet(c, { prefix: 'hello', count: 1, script: HELLO })
      const [cpu] = await startFleet(c, { prefix: 'cpu', count: 1, script: CPU })
      ports.set(c.name, { hello: hello.port, cpu: cpu.port })
    }
    const seconds = ctx.quick ? 2 : 4
    const opts = { seconds, connections: 50, loader: ctx.loader }
    // Warm-up: JIT and connection setup, not measured.
    for (const c of all) for (const kind of ['hello', 'cpu']) await loadRun(ctx.tools, ports.get(c.name)[kind], { ...opts, seconds: 1 })

    const out = []
    for (const kind of ['hello', 'cpu']) {
      const result = await alternate(all, ctx.rounds(5, 2), async (c) => {
        const r = await loadRun(ctx.tools, ports.get(c.name)[kind], opts)
        return { rps: r.rps, p99: r.p99, errors: r.errors }
      }, ctx)
      out.push(...rows([
        { id: `throughput.${kind}.rps`, key: 'rps', label: `${kind} app: requests/s`, unit: 'req/s', better: 'higher' },
        { id: `throughput.${kind}.p99`, key: 'p99', label: `${kind} app: p99 latency`, unit: 'ms' },
        { id: `throughput.${kind}.errors`, key: 'errors', label: `${kind} app: errors`, unit: 'count' }
      ], result))
    }
    const tool = ctx.loader || (ctx.tools.wrk ? 'wrk' : 'autocannon')
    out[0].note = `${tool}, 50 connections, ${seconds} s per run, keep-alive`
    return out
  }
}
