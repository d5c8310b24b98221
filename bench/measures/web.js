'use strict'

const { spawn } = require('node:child_process')
const { alternate, rows } = require('../lib/series')
const { startFleet } = require('../lib/apps')
const { tmuxStart, tmuxAvailable } = require('../lib/tmux')
const { BIN } = require('../lib/xpm')
const { cpuSeconds, descendants, delay, waitFor, isAlive, kill } = require('../lib/util')

const CHROMIUM = '/usr/bin/chromium'
const FAKE_SERVER = require('node:path').join(__dirname, '..', 'lib', 'web-fake-server.js')

// CPU (utime+stime from /proc) of each pid over `seconds`, as % of a core; a pid list counts
// together (chromium's processes).
async function cpuOver (groups, seconds) {
  const read = () => Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, [].concat(pids()).reduce((sum, p) => {
    try { return sum + cpuSeconds(p) } catch { return sum }
  }, 0)]))
  const before = read()
  const t0 = performance.now()
  await delay(seconds * 1000)
  const after = read()
  const elapsed = (performance.now() - t0) / 1000
  return Object.fromEntries(Object.keys(groups).map((k) => [k, (after[k] - before[k]) / elapsed * 100]))
}

async function startWebServer (c, argv = [BIN, 'web', '--port', '0']) {
  const child = spawn(process.execPath, argv, { env: c.env, stdio: ['ignore', 'pipe', 'inherit'] })
  c.track(child.pid)
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const url = await waitFor(() => /(http:\/\/\S+#token=\S+)/.exec(out)?.[1], { timeout: 20000, message: 'the URL of xpm web' })
  return { pid: child.pid, url, stop: () => { if (isAlive(child.pid)) kill(child.pid, 'SIGTERM') } }
}

// `xpm web` against `xpm monit`, each watching the same 8 workers: the dashboard's own process,
// the daemon feeding it, and (web) the browser drawing the page; plus the web server with no
// page open, which should cost nothing (no subscription), and the page at 1,000 processes.
module.exports = {
  name: 'web',
  title: 'web dashboard vs monit (8 workers)',
  description: 'xpm only (PM2\'s `pm2 web` serves JSON, no page). Each run: `xpm monit` in a 120×40 tmux terminal; `xpm web` with no page open; `xpm web` with one page open in headless Debian chromium (1280×800) through puppeteer-core. CPU = utime+stime from /proc/<pid>/stat over the window, after the dashboard has drawn the apps; the browser figure sums every chromium process. The 1,000-process rows: the server fed by the tests\' fake daemon client (one push a second, every figure moving), the page\'s main-thread busy share from Chrome\'s TaskDuration metric.',
  async run (ctx) {
    if (!await tmuxAvailable()) throw new Error('tmux is not installed')
    const [c] = ctx.contenders(['xpm'])
    await startFleet(c, { prefix: 'web', count: 4, instances: 2 })
    const seconds = ctx.quick ? 5 : 15
    const puppeteer = require('puppeteer-core')
    const result = await alternate([c], ctx.rounds(3, 1), async () => {
      const daemon = () => c.daemonPid()
      const figures = {}
      // monit
      const term = await tmuxStart(c.monitCommand(), { env: c.env })
      try {
        const pid = await term.pid()
        c.track(pid)
        await waitFor(async () => /web0/.test(await term.capture()), { timeout: 10000, message: 'monit to show web0' })
        await delay(1000)
        const m = await cpuOver({ monit: () => pid, daemon }, seconds)
        figures.monitCpu = m.monit
        figures.monitDaemon = m.daemon
      } finally {
        await term.kill()
      }
      // web, no page, then one page
      const web = await startWebServer(c)
      try {
        // the daemon samples at the full rate for 10 s after a dashboard or a `list` asked:
        // wait that out, so the window shows what an unwatched `xpm web` costs
        await delay(11000)
        const idle = await cpuOver({ web: () => web.pid, daemon }, seconds)
        figures.idleCpu = idle.web
        figures.idleDaemon = idle.daemon
        const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] })
        const browserPid = browser.process().pid
        try {
          const page = await browser.newPage()
          await page.setViewport({ width: 1280, height: 800 })
          await page.goto(web.url)
          await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 8, { timeout: 20000 })
          await delay(1000)
          const open = await cpuOver({ web: () => web.pid, daemon, browser: () => [browserPid, ...descendants(browserPid)] }, seconds)
          figures.pageCpu = open.web
          figures.pageDaemon = open.daemon
          figures.pageBrowser = open.browser
        } finally {
          await browser.close()
        }
      } finally {
        web.stop()
      }
      // the page at 1,000 processes: the server fed by a fake daemon client, the browser drawing
      // the table; the page's main thread busy time (CDP TaskDuration) says whether it stays smooth
      const fake = await startWebServer(c, [FAKE_SERVER, '1000'])
      try {
        const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] })
        const browserPid = browser.process().pid
        try {
          const page = await browser.newPage()
          await page.setViewport({ width: 1280, height: 800 })
          await page.goto(fake.url)
          await page.waitForFunction(() => /^1000 processes/.test(document.querySelector('#summary').textContent), { timeout: 30000 })
          await delay(1000)
          const m0 = await page.metrics()
          const t0 = performance.now()
          const big = await cpuOver({ web: () => fake.pid, browser: () => [browserPid, ...descendants(browserPid)] }, seconds)
          const m1 = await page.metrics()
          figures.bigCpu = big.web
          figures.bigBrowser = big.browser
          figures.bigMain = (m1.TaskDuration - m0.TaskDuration) / ((performance.now() - t0) / 1000) * 100
        } finally {
          await browser.close()
        }
      } finally {
        fake.stop()
      }
      return figures
    }, ctx)
    const out = rows([
      { id: 'web.monit.cpu', key: 'monitCpu', label: '`xpm monit` process CPU', unit: '% of a core' },
      { id: 'web.monit.daemon', key: 'monitDaemon', label: 'daemon CPU while `xpm monit` runs', unit: '% of a core' },
      { id: 'web.page.cpu', key: 'pageCpu', label: '`xpm web` server CPU, one page open', unit: '% of a core' },
      { id: 'web.page.daemon', key: 'pageDaemon', label: 'daemon CPU while one page is open', unit: '% of a core' },
      { id: 'web.page.browser', key: 'pageBrowser', label: 'the browser drawing the page (all chromium processes)', unit: '% of a core' },
      { id: 'web.1000.cpu', key: 'bigCpu', label: '1,000 processes (synthetic figures): `xpm web` server CPU, one page open', unit: '% of a core' },
      { id: 'web.1000.browser', key: 'bigBrowser', label: '1,000 processes: the browser drawing the page', unit: '% of a core' },
      { id: 'web.1000.main', key: 'bigMain', label: '1,000 processes: the page\'s main thread busy (scripts, style, layout, paint)', unit: '% of the time' },
      { id: 'web.idle.cpu', key: 'idleCpu', label: '`xpm web` server CPU, no page open', unit: '% of a core' },
      { id: 'web.idle.daemon', key: 'idleDaemon', label: 'daemon CPU, `xpm web` running, no page open', unit: '% of a core' }
    ], result)
    out[0].note = `${seconds} s per window`
    return out
  }
}
