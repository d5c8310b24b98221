'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { Xpm } = require('../lib/xpm')
const { Pm2 } = require('../lib/pm2')
const { rss, cpuMs, descendants, waitFor, freePort, delay } = require('../lib/util')
const { writeApps } = require('./apps')
const { paceLoad, scrapeLoop } = require('./traffic')
const { readHeap } = require('./inspect')

const MB = 1024 * 1024

// One contender's soak: its 20 apps, the load, a command every 2 s, /metrics scraped every 5 s
// (xpm; PM2 has no such endpoint), a reading of its daemon every minute. → { readings, … }
async function soakOne (name, { minutes, toolsDir, dir, log }) {
  const c = name === 'xpm' ? new Xpm() : new Pm2({ toolsDir })
  const ports = { api: await freePort(), web: await freePort(), probed: await freePort(), metrics: await freePort() }
  if (name === 'xpm') c.env.XPM_METRICS = `127.0.0.1:${ports.metrics}`
  const appDir = fs.mkdtempSync(path.join(dir, `${name}-`))
  const { file, idle } = writeApps(appDir, name, ports)
  const stop = []
  const out = { name, version: c.version(), readings: [], commands: {}, leftovers: null }
  try {
    await c.cliOk(['start', file], { timeout: 120000 })
    const pid = c.daemonPid()
    c.track(pid)
    await waitFor(async () => (await c.jlist()).filter((p) => (p.status || p.pm2_env?.status) === 'online').length >= 18, { timeout: 60000, message: `${name}: apps online` })
    const loads = [paceLoad(ports.api), paceLoad(ports.web)]
    stop.push(() => loads.forEach((l) => l.stop()))
    const scrapes = name === 'xpm' ? scrapeLoop(ports.metrics) : null
    if (scrapes) stop.push(() => scrapes.stop())
    let restarts = null
    const commands = commandList(c, idle, (list) => { restarts = list.reduce((sum, p) => sum + (p.restarts ?? p.pm2_env?.restart_time ?? 0), 0) })
    const started = Date.now()
    let cpuBefore = cpuMs(pid)
    let lastT = Date.now()
    let nextReading = started
    let n = 0
    while (out.readings.length <= minutes) { // readings at minute 0, 1, …, minutes
      if (Date.now() >= nextReading) {
        const cpuNow = cpuMs(pid)
        const now = Date.now()
        const heap = await readHeap(pid).catch(() => null)
        const kids = descendants(pid)
        c.track(...kids)
        const r = {
          minute: Math.round((Date.now() - started) / 60000),
          rssMB: +(rss(pid) / MB).toFixed(1),
          heapAfterGcMB: heap ? +(heap.heapUsed / MB).toFixed(2) : null,
          timers: heap?.timers ?? null,
          handles: heap?.handles ?? null,
          fds: fs.readdirSync(`/proc/${pid}/fd`).length,
          threads: Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]),
          children: kids.length,
          cpuPct: out.readings.length ? +((cpuNow - cpuBefore) / (now - lastT) * 100).toFixed(1) : null,
          restarts,
          failedRequests: loads.reduce((s, l) => s + l.stats.failed, 0),
          load1: +require('node:os').loadavg()[0].toFixed(2)
        }
        cpuBefore = cpuNow
        lastT = now
        out.readings.push(r)
        log(`${name} min ${r.minute}: RSS ${r.rssMB} MB, heap after GC ${r.heapAfterGcMB} MB, fds ${r.fds}, children ${r.children}, timers ${r.timers}, CPU ${r.cpuPct} %, restarts ${r.restarts}, failed requests ${r.failedRequests}, load ${r.load1}`)
        nextReading += 60000
        if (out.readings.length > minutes) break
      }
      const t0 = Date.now()
      const [label, fn] = commands[n++ % commands.length]
      const res = await fn().then(() => null, (err) => err)
      const s = (out.commands[label] ||= { count: 0, failed: 0, ms: [], lastError: null })
      s.count++
      s.ms.push(Date.now() - t0)
      if (res) { s.failed++; s.lastError = res.message.slice(0, 300) }
      await delay(Math.max(0, 2000 - (Date.now() - t0)))
    }
    out.requests = loads.map((l) => l.stats)
    out.scrapes = scrapes?.stats ?? null
    for (const s of Object.values(out.commands)) { s.ms.sort((a, b) => a - b); s.medianMs = s.ms[s.ms.length >> 1]; delete s.ms }
    for (const f of stop.splice(0)) f()
    await c.kill()
    await waitFor(() => c.alive().length === 0, { timeout: 15000 }).catch(() => {})
    out.leftovers = c.alive().length
    return out
  } finally {
    for (const f of stop) f()
    await c.destroy()
  }
}

// [label, () => Promise] in the order they come, every 2 s
function commandList (c, idleScript, onList) {
  let scaleTo = 3
  let tmp = 0
  return [
    ['reload', () => c.cliOk(['reload', 'api'], { timeout: 60000 })],
    ['restart', () => c.cliOk(['restart', 'idle0'], { timeout: 60000 })],
    ['scale', () => { const n = scaleTo; scaleTo = n === 3 ? 2 : 3; return c.cliOk(['scale', 'web', String(n)], { timeout: 60000 }) }],
    ['start+delete', async () => {
      const name = `tmp${tmp++}`
      await c.cliOk(['start', idleScript, '--name', name], { timeout: 60000 })
      await c.cliOk(['delete', name], { timeout: 60000 })
    }],
    ['save', () => c.cliOk(['save'], { timeout: 60000 })],
    ['jlist', async () => onList(await c.jlist())],
    ['logs', () => c.cliOk(['logs', 'logger0', '--lines', '50', '--nostream'], { timeout: 60000 })],
    ['show', () => c.cliOk(['show', 'probed'], { timeout: 60000 })]
  ]
}

module.exports = { soakOne }
