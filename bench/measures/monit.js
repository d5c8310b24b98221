'use strict'

const { alternate, rows } = require('../lib/series')
const { startFleet } = require('../lib/apps')
const { tmuxStart, tmuxAvailable } = require('../lib/tmux')
const { cpuSeconds, delay, waitFor, isAlive, kill } = require('../lib/util')

// CPU of the dashboard process (`xpm monit` vs `pm2 monit`) with 8 workers, in a 120×40 tmux
// terminal, and of the daemon that feeds it over the same window.
module.exports = {
  name: 'monit',
  title: 'monit dashboard (8 workers)',
  description: 'The dashboard runs in a private tmux server; CPU = utime+stime from /proc/<pid>/stat over the window, after it has drawn the apps.',
  async run (ctx) {
    if (!await tmuxAvailable()) throw new Error('tmux is not installed')
    const all = ctx.contenders(['xpm', 'pm2'])
    for (const c of all) await startFleet(c, { prefix: 'mon', count: 4, instances: 2 })
    const seconds = ctx.quick ? 5 : 15
    const result = await alternate(all, ctx.rounds(3, 2), async (c) => {
      const term = await tmuxStart(c.monitCommand(), { env: c.env })
      let pid
      try {
        pid = await term.pid()
        c.track(pid)
        await waitFor(async () => /mon0/.test(await term.capture()), { timeout: 10000, message: 'the dashboard to show mon0' })
        await delay(1000)
        const daemon = c.daemonPid()
        const d0 = cpuSeconds(daemon)
        const p0 = cpuSeconds(pid)
        const t0 = performance.now()
        await delay(seconds * 1000)
        const p1 = cpuSeconds(pid)
        const d1 = cpuSeconds(daemon)
        const elapsed = (performance.now() - t0) / 1000
        return { cpu: (p1 - p0) / elapsed * 100, daemon: (d1 - d0) / elapsed * 100 }
      } finally {
        await term.kill()
        if (pid && isAlive(pid)) kill(pid)
      }
    }, ctx)
    const out = rows([
      { id: 'monit.cpu', key: 'cpu', label: 'dashboard process CPU', unit: '% of a core' },
      { id: 'monit.daemon', key: 'daemon', label: 'daemon CPU while the dashboard runs', unit: '% of a core' }
    ], result)
    out[0].note = `${seconds} s per run, 120×40 tmux`
    return out
  }
}
