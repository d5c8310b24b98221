'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { rows } = require('../lib/series')
const { tmuxStart, tmuxAvailable } = require('../lib/tmux')
const { Xpm, ROOT } = require('../lib/xpm')
const { watchCost } = require('../lib/watch-cost')
const { cpuMs, delay, waitFor, isAlive, kill } = require('../lib/util')

// Issue 27: what the daemon pays while someone watches a few of many processes. N processes of a
// tiny program (1,000 unless --idle-procs; the N-process case of "Many processes") under one tool
// at a time: this tree's xpm, PM2, and, with XPM_BENCH_BEFORE=<an unpacked earlier commit with a
// node_modules>, that xpm (the "before" column). Once every process is online and nothing asked
// for QUIET_S, the daemon's CPU is read with nobody watching, while `monit` shows its first rows
// in a 120×40 tmux terminal (about 20 of them), while one `xpm web` page (chromium 1280×800, the
// rows in view: about 30) is open, and while a socket subscriber names 20 processes
// (watch-cost.js: the change feed, whole lists, every process).
const QUIET_S = 15
const DEADLINE_MS = 300000
const CHROMIUM = '/usr/bin/chromium'
const TINY = '#!/bin/sh\nexec sleep 100000\n'

// % of a core each pid used over the window, all threads, at ns resolution (schedstat: the
// 10 ms ticks of /proc/<pid>/stat are too coarse for a few tenths of a percent over 10 s).
async function cpuWindow (pids, seconds) {
  const read = () => pids.map((pid) => { try { return cpuMs(pid) } catch { return 0 } })
  const before = read()
  const t0 = performance.now()
  await delay(seconds * 1000)
  const after = read()
  const elapsed = performance.now() - t0
  return after.map((v, i) => (v - before[i]) / elapsed * 100)
}

async function monitWindow (c, seconds) {
  const term = await tmuxStart(c.monitCommand(), { env: c.env })
  try {
    const pid = await term.pid()
    c.track(pid)
    await waitFor(async () => (await term.capture()).includes('tiny'), { timeout: 60000, interval: 250, message: 'the dashboard to show the processes' })
    await delay(3000) // the first `watch` and the agents' switch
    const [daemon, monit] = await cpuWindow([c.daemonPid(), pid], seconds)
    return { daemon, monit }
  } finally {
    await term.kill()
  }
}

async function webWindow (c, count, seconds) {
  const child = spawn(process.execPath, [c.bin, 'web', '--port', '0'], { env: c.env, stdio: ['ignore', 'pipe', 'ignore'] })
  c.track(child.pid)
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  try {
    const url = await waitFor(() => /(http:\/\/\S+#token=\S+)/.exec(out)?.[1], { timeout: 20000, message: 'the URL of xpm web' })
    const puppeteer = require('puppeteer-core')
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] })
    try {
      const page = await browser.newPage()
      await page.setViewport({ width: 1280, height: 800 })
      await page.goto(url)
      await page.waitForFunction((n) => document.querySelector('#summary').textContent.startsWith(`${n} processes`), { timeout: 60000 }, count)
      await delay(3000)
      const [daemon, web] = await cpuWindow([c.daemonPid(), child.pid], seconds)
      return { daemon, web }
    } finally {
      await browser.close()
    }
  } finally {
    if (isAlive(child.pid)) kill(child.pid, 'SIGTERM')
  }
}

function add (series, key, value) {
  (series[key] ||= []).push(value)
}

async function runOne (c, { file, count, seconds, rounds, xpm }, log) {
  const series = {}
  await c.ping()
  await c.cli(['start', file], { timeout: DEADLINE_MS })
  await waitFor(async () => (await c.jlist()).filter((p) => (p.pm2_env?.status ?? p.status) === 'online' && p.pid > 0).length >= count, { timeout: DEADLINE_MS, interval: 1000, message: `${count} processes online` })
  log(`  ${c.name}: ${count} online`)
  await delay(QUIET_S * 1000)
  for (let round = 0; round < rounds; round++) {
    add(series, 'nobody', (await cpuWindow([c.daemonPid()], seconds))[0])
    const monit = await monitWindow(c, seconds)
    add(series, 'monitDaemon', monit.daemon)
    add(series, 'monit', monit.monit)
    if (!xpm) continue
    await delay(11000) // the lease of the jlist above and monit's subscription over
    const web = await webWindow(c, count, seconds)
    add(series, 'webDaemon', web.daemon)
    add(series, 'web', web.web)
    await delay(11000)
  }
  if (xpm) {
    const cost = await watchCost(c, { root: c.root, shown: 20, rounds, seconds })
    for (const [kind, values] of Object.entries(cost)) for (const v of values) add(series, `sub.${kind}`, v)
  }
  await c.kill()
  await c.reap()
  return series
}

module.exports = {
  name: 'watch',
  title: 'While someone watches a few of many processes',
  columns: { raw: 'xpm before (XPM_BENCH_BEFORE)', ratio: 'xpm/before' },
  description: `N tiny processes (a shell script that \`exec\`s \`sleep\`; one app with \`instances: N\`, fork mode), under one tool at a time: this xpm, PM2, and xpm at an earlier commit (XPM_BENCH_BEFORE, the "before" column). ${QUIET_S} s after every process is online, the daemon's CPU (all its threads, from /proc/<pid>/task/*/schedstat, at ns resolution) is read over equal windows: nobody watching; \`monit\` in a 120×40 tmux terminal (about 20 rows shown); one \`xpm web\` page in headless chromium at 1280×800 (about 30 rows in view); and a client of the socket subscribing to 20 processes: as \`xpm monit\` and \`xpm web\` do now (the others pushed when they change), with whole lists every second (the protocol before), and every process (bench/lib/watch-cost.js; an earlier xpm ignores \`changes\`). The windows of web and the subscriber are xpm only (\`pm2 web\` serves JSON, no page).`,
  async run (ctx) {
    if (!await tmuxAvailable()) throw new Error('tmux is not installed')
    const count = ctx.idleProcs || (ctx.quick ? 300 : 1000)
    const opts = { count, seconds: ctx.quick ? 5 : 10, rounds: ctx.rounds(3, 1) }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-watch-'))
    const before = process.env.XPM_BENCH_BEFORE ? path.resolve(process.env.XPM_BENCH_BEFORE) : null
    try {
      const tiny = path.join(dir, 'tiny.sh')
      fs.writeFileSync(tiny, TINY, { mode: 0o755 })
      const file = path.join(dir, 'procs.config.js')
      fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps: [{ name: 'tiny', script: tiny, exec_mode: 'fork', instances: count }] })}\n`)
      const [xpm, pm2] = ctx.contenders(['xpm', 'pm2'])
      const merged = { series: { xpm: {}, pm2: {}, raw: {} }, errors: {} }
      const runs = [['xpm', xpm, true], ['pm2', pm2, false]]
      if (before && before !== ROOT) runs.push(['raw', new Xpm({ root: before, name: 'xpm-before' }), true])
      for (const [key, c, isXpm] of runs) {
        try {
          merged.series[key] = await runOne(c, { ...opts, file, xpm: isXpm }, ctx.log)
        } catch (err) {
          merged.errors[key] = err.message
          ctx.log(`  ${c.name} failed: ${err.message}`)
        }
        if (key === 'raw') await c.destroy()
      }
      const out = rows([
        { id: 'watch.nobody', key: 'nobody', label: `${count} tiny processes: daemon CPU, nobody watching`, unit: '% of a core' },
        { id: 'watch.monit.daemon', key: 'monitDaemon', label: `${count} tiny processes: daemon CPU while \`monit\` shows about 20 of them`, unit: '% of a core' },
        { id: 'watch.monit', key: 'monit', label: `${count} tiny processes: the \`monit\` process`, unit: '% of a core' },
        { id: 'watch.web.daemon', key: 'webDaemon', label: `${count} tiny processes: daemon CPU while one \`xpm web\` page shows about 30 of them`, unit: '% of a core' },
        { id: 'watch.web', key: 'web', label: `${count} tiny processes: the \`xpm web\` server, one page open`, unit: '% of a core' },
        { id: 'watch.sub.some', key: 'sub.some', label: `${count} tiny processes: daemon CPU, a subscriber of 20 (the others when they change)`, unit: '% of a core' },
        { id: 'watch.sub.someLists', key: 'sub.someLists', label: `${count} tiny processes: daemon CPU, a subscriber of 20 with whole lists every second`, unit: '% of a core' },
        { id: 'watch.sub.all', key: 'sub.all', label: `${count} tiny processes: daemon CPU, a subscriber of every process`, unit: '% of a core' }
      ], merged)
      out[0].note = `${opts.seconds} s windows, ${opts.rounds} rounds${before ? `, before: ${before}` : ', no XPM_BENCH_BEFORE: no before column'}`
      return out
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
