#!/usr/bin/env node
'use strict'

// node bench/fleet-web.js [--hosts 10] [--procs 20] [--window 20] [--rounds 3]
// The cost of `xpm web --hosts` (issue 39): HOSTS real sshd "hosts" on loopback, each with its own
// XPM_HOME and daemon (test/helpers/fleet.js) running PROCS tiny processes (a shell script that
// execs sleep), the dashboard started as the CLI runs it, one page open in headless chromium.
// Over equal windows, after every row is on the page: the `xpm web` process's CPU
// (utime+stime, /proc/<pid>/stat) and RSS at the end, its ssh children's CPU (one master per host
// plus the bridges' channels), the frames the page received per second and their bytes (CDP
// Network.eventSourceMessageReceived), the page's main-thread busy share (TaskDuration), and the
// hosts' daemons' CPU (summed over the 10, with the page open and with none).
// Rounds: a window with the page open, then a window with no page (the subscriptions lingering
// closed). Prints medians and every reading. Not part of `npm run bench` (it needs sshd).
const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')

const args = process.argv.slice(2)
const opt = (name, def) => { const i = args.indexOf(name); return i === -1 ? def : Number(args[i + 1]) }
const HOSTS = opt('--hosts', 10)
const PROCS = opt('--procs', 20)
const WINDOW_MS = opt('--window', 20) * 1000
const ROUNDS = opt('--rounds', 3)
const ROOT = path.join(__dirname, '..')

const ticks = (pid) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(f[11]) + Number(f[12])
  } catch { return 0 }
}
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024
function children (pid) {
  const out = []
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(e), ...children(Number(e)))
    } catch {}
  }
  return out
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const HZ = 100

async function main () {
  const cleanups = []
  const t = { after: (fn) => cleanups.push(fn) }
  const { startFleet } = require(path.join(ROOT, 'test/helpers/fleet'))
  const { startWeb, launchBrowser } = require(path.join(ROOT, 'test/helpers/web'))
  const readings = { pageCpu: [], idleCpu: [], sshCpu: [], rss: [], frames: [], kbps: [], main: [], daemonsPage: [], daemonsIdle: [] }
  try {
    const f = await startFleet(t, HOSTS)
    await Promise.all(f.hosts.map(async (h) => {
      const res = await h.home.run(['start', path.join(ROOT, 'test/fixtures/tiny-sleeper.sh'), '--name', 'tiny', '-i', String(PROCS)], { timeout: 120000 })
      if (res.code !== 0) throw new Error(res.stderr)
    }))
    const daemons = f.hosts.map((h) => h.home.daemonPid())
    const daemonTicks = () => daemons.reduce((sum, p) => sum + ticks(p), 0)
    const web = await startWeb({ env: f.env, cwd: f.dir }, ['--hosts', 'production'], t)
    const browser = await launchBrowser()
    cleanups.push(() => browser.close())
    for (let round = 0; round < ROUNDS; round++) {
      const page = await browser.newPage()
      await page.setViewport({ width: 1280, height: 800 })
      const cdp = await page.createCDPSession()
      await cdp.send('Network.enable')
      let frames = 0
      let bytes = 0
      cdp.on('Network.eventSourceMessageReceived', (e) => { if (e.eventName === 'diff' || e.eventName === 'full') { frames++; bytes += e.data.length } })
      await page.goto(web.url)
      await page.waitForFunction((n) => window.xpmWeb?.state.rows.size === n, { timeout: 120000 }, HOSTS * PROCS)
      await new Promise((resolve) => setTimeout(resolve, 5000))
      const ssh = () => children(web.pid)
      const c0 = ticks(web.pid)
      const d0 = daemonTicks()
      const s0 = ssh().reduce((sum, p) => sum + ticks(p), 0)
      const m0 = await page.metrics()
      frames = 0
      bytes = 0
      const t0 = performance.now()
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
      const secs = (performance.now() - t0) / 1000
      const m1 = await page.metrics()
      readings.pageCpu.push((ticks(web.pid) - c0) / HZ / secs * 100)
      readings.daemonsPage.push((daemonTicks() - d0) / HZ / secs * 100)
      readings.sshCpu.push((ssh().reduce((sum, p) => sum + ticks(p), 0) - s0) / HZ / secs * 100)
      readings.rss.push(rssMb(web.pid))
      readings.frames.push(frames / secs)
      readings.kbps.push(bytes / 1024 / secs)
      readings.main.push((m1.TaskDuration - m0.TaskDuration) / secs * 100)
      await page.close()
      await new Promise((resolve) => setTimeout(resolve, 5000)) // the subscriptions' linger
      const i0 = ticks(web.pid)
      const di0 = daemonTicks()
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
      readings.idleCpu.push((ticks(web.pid) - i0) / HZ / (WINDOW_MS / 1000) * 100)
      readings.daemonsIdle.push((daemonTicks() - di0) / HZ / (WINDOW_MS / 1000) * 100)
      process.stderr.write(`round ${round + 1}: ${JSON.stringify(Object.fromEntries(Object.entries(readings).map(([k, v]) => [k, v.at(-1)])))}\n`)
    }
    const out = Object.fromEntries(Object.entries(readings).map(([k, v]) => [k, { median: Number(median(v).toFixed(2)), all: v.map((x) => Number(x.toFixed(2))) }]))
    console.log(JSON.stringify({ hosts: HOSTS, procs: PROCS, windowS: WINDOW_MS / 1000, ...out }, null, 2))
  } finally {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1) })
