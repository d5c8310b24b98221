'use strict'

// `xpm web --hosts production` for real: three sshd "hosts" on loopback, each with its own
// XPM_HOME and daemon (test/helpers/fleet.js), the dashboard started as the CLI runs it, and
// chromium on its page. It shows the processes of the 3 hosts with a host column, the log and
// charts of a process on host 2, restarts `api` on host 2 (and there only: the same app on hosts
// 1 and 3 keeps its pid), keeps the dashboard's checks; then host 3's sshd dies with the page open
// and its rows read "unreachable" (never "stopped") while hosts 1 and 2 stay live.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, fixture, waitFor, isAlive } = require('../helpers/xpm')
const { sshdMissing } = require('../helpers/sshd')
const { startFleet } = require('../helpers/fleet')
const { killHost } = require('../helpers/host-kill')
const { startWeb, request, launchBrowser, CHROMIUM } = require('../helpers/web')

const skip = sshdMissing() || (CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)')

test('xpm web --hosts: 3 hosts on one page, an action on host 2 only, a host that dies shows as unreachable', { skip, timeout: 300000 }, async (t) => {
  const f = await startFleet(t, 3)
  for (const [i, host] of f.hosts.entries()) {
    for (const [args, env] of [[['start', fixture('tick-lines.js'), '--name', 'api'], { TICK_MS: '300' }], [['start', fixture('idle.js'), '--name', `only-h${i + 1}`], {}]]) {
      const res = await host.home.run(args, { env })
      assert.equal(res.code, 0, res.stderr)
    }
  }
  const before = await Promise.all(f.hosts.map((h) => h.home.jlist()))
  const apiOf = (list) => list.find((p) => p.name === 'api')
  const web = await startWeb({ env: f.env, cwd: f.dir }, ['--hosts', 'production'], t)
  assert.match(web.output().stdout, /web dashboard of 3 hosts \(h1, h2, h3\)/)

  await t.test('the checks of xpm web hold', async () => {
    assert.equal((await request(web.port, { path: '/api/processes' })).status, 401)
    const auth = { authorization: `Bearer ${web.token}` }
    assert.equal((await request(web.port, { path: '/api/processes', headers: { ...auth, host: 'evil.example' } })).status, 403)
    const noCsrf = await request(web.port, { method: 'POST', path: '/api/action', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ action: 'restart', target: 'api', host: 'h2' }) })
    assert.equal(noCsrf.status, 403)
    const wrongHost = await request(web.port, { path: '/api/history?id=0&host=h9', headers: auth })
    assert.equal(wrongHost.status, 400)
    assert.match(wrongHost.json.error.message, /one of h1, h2, h3/)
    const all = await request(web.port, { path: '/api/processes', headers: auth })
    assert.deepEqual(all.json.hosts.map((h) => [h.host, h.processes.map((p) => p.name).sort()]), [1, 2, 3].map((i) => [`h${i}`, ['api', `only-h${i}`]]))
  })

  const browser = await launchBrowser()
  t.after(() => browser.close())
  const page = await browser.newPage()
  await page.setViewport({ width: 1300, height: 900 })
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(web.url)
  await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 6, { timeout: 60000 })
  const h2api = `h2/${apiOf(before[1]).id}`

  await t.test('the processes of 3 hosts, a host column first, the hosts live', async () => {
    const rows = await page.$$eval('#rows .row:not([hidden])', (els) => els.map((el) => [el.dataset.id, el.querySelector('[data-col="host"]').textContent, el.querySelector('[data-col="name"]').textContent.replace(/ \[\d+\]$/, '')]))
    assert.deepEqual(rows.map((r) => [r[1], r[2]]).sort(), [1, 2, 3].flatMap((i) => [[`h${i}`, 'api'], [`h${i}`, `only-h${i}`]]).sort())
    assert.deepEqual(await page.$eval('#thead', (el) => el.firstElementChild.textContent), 'host')
    await page.waitForFunction(() => [...document.querySelectorAll('#hosts .host')].map((c) => c.className).join() === 'host up,host up,host up', { timeout: 30000 })
    await page.waitForFunction(() => /^6 processes on 3 hosts, 6 online/.test(document.querySelector('#summary').textContent), { timeout: 30000 })
    // a host's chip shows its rows only; again, all of them
    await page.click('#hosts .host[data-host="h2"]')
    await page.waitForFunction(() => [...document.querySelectorAll('#rows .row:not([hidden])')].map((el) => el.dataset.id.split('/')[0]).join() === 'h2,h2', { timeout: 10000 })
    await page.click('#hosts .host[data-host="h2"]')
    await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 6, { timeout: 10000 })
  })

  await t.test('a process on host 2: its log and its charts', async () => {
    await page.click(`#rows .row[data-id="${h2api}"]`)
    await page.waitForFunction((k) => window.xpmWeb.state.selectedId === k, { timeout: 10000 }, h2api)
    assert.match(await page.$eval('#sel-title', (el) => el.textContent), / on h2 · pid /)
    await page.waitForFunction(() => [...document.querySelectorAll('#logs .line .text')].some((l) => /^tick \d+/.test(l.textContent)), { timeout: 30000 })
    await page.waitForFunction(() => window.xpmWeb.charts.plots.cpu.data[0].length >= 3, { timeout: 30000 })
  })

  await t.test('restart on host 2 restarts api there, and there only', async () => {
    await page.click('#actions button[data-scope="id"][data-action="restart"]')
    await page.waitForFunction(() => /\[xpm\] restarted \d+/.test(document.querySelector('#action-output').textContent), { timeout: 60000 })
    assert.match(await page.$eval('#action-output', (el) => el.textContent), /\$ xpm restart \d+ --host h2/)
    const after = await Promise.all(f.hosts.map((h) => h.home.jlist()))
    assert.notEqual(apiOf(after[1]).pid, apiOf(before[1]).pid, 'api on h2 has a new pid')
    assert.equal(apiOf(after[1]).restarts, 1)
    for (const i of [0, 2]) {
      assert.equal(apiOf(after[i]).pid, apiOf(before[i]).pid, `api on h${i + 1} was touched`)
      assert.equal(apiOf(after[i]).restarts, 0)
    }
    await page.waitForFunction((k, pid) => document.querySelector('#sel-title').textContent.includes(`pid ${pid}`), { timeout: 30000 }, h2api, apiOf(after[1]).pid)
  })

  await t.test('host 3 dies with the page open: unreachable, not stopped; hosts 1 and 2 stay live', async () => {
    killHost(f.hosts[2].sshd.pid)
    await page.waitForFunction(() => document.querySelector('#hosts .host[data-host="h3"]')?.classList.contains('unreachable'), { timeout: 60000 })
    // the host bar turns at once, the table's rows in its next animation frame
    await page.waitForFunction(() => [...document.querySelectorAll('#rows .row:not([hidden])')].filter((el) => el.dataset.id.startsWith('h3/')).every((el) => el.classList.contains('unreachable')), { timeout: 10000 })
    const h3 = await page.$$eval('#rows .row:not([hidden])', (els) => els.filter((el) => el.dataset.id.startsWith('h3/')).map((el) => [el.className, el.querySelector('[data-col="status"]').textContent]))
    assert.deepEqual(h3, [['row unreachable', 'unreachable'], ['row unreachable', 'unreachable']])
    // the restarted api on h2 is online again on the page once a frame says so (about 1 a second)
    await page.waitForFunction(() => /^6 processes on 3 hosts \(1 unreachable\), 4 online/.test(document.querySelector('#summary').textContent), { timeout: 30000 })
    assert.match(await page.$eval('#hosts .host[data-host="h3"]', (el) => el.title), /^h3: unreachable/)
    // XPM_UPDATE_SCREENSHOTS=1: the picture of docs/fleet.md
    if (process.env.XPM_UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: path.join(__dirname, '..', '..', 'docs', 'images', 'web-fleet.png') })
    // the others still move: a frame of h1 after the host went
    const at = await page.evaluate(() => window.xpmWeb.state.at)
    await page.waitForFunction((at) => window.xpmWeb.state.at > at, { timeout: 30000 }, at)
    assert.equal(await page.$eval('#conn', (el) => el.textContent), 'live')
    // and an action on h3 says why it cannot be done
    const auth = { authorization: `Bearer ${web.token}` }
    const res = await request(web.port, { path: '/api/why?target=api&host=h3', headers: auth })
    assert.equal(res.status, 503)
    assert.equal(res.json.error.code, 'XPM_ERR_HOST_UNREACHABLE')
  })
  assert.deepEqual(errors, [])

  await t.test('the dashboard killed with SIGKILL takes its ssh connections with it', async () => {
    const sshPids = childrenOf(web.pid)
    assert.ok(sshPids.length >= 2, `ssh processes of the dashboard: ${sshPids}`)
    process.kill(web.pid, 'SIGKILL')
    await waitFor(() => sshPids.every((pid) => !isAlive(pid)), { timeout: 30000, message: `the ssh processes ${sshPids} to end` })
  })
})

// the processes a process started (its ssh masters and channels)
function childrenOf (pid) {
  const out = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry))
    } catch {}
  }
  return out
}

test('xpm web: --daemon is refused with --hosts, and two addresses to listen on are refused', async (t) => {
  const home = createHome(t)
  const daemon = await home.run(['web', '--hosts', 'production', '--daemon', '--port', '9999'])
  assert.equal(daemon.code, 2, daemon.stderr)
  assert.match(daemon.stderr, /--daemon serves this machine's daemon only: run `xpm web --hosts` in the foreground/)
  const two = await home.run(['web', '--host', '127.0.0.1', '--host', '::1', '--port', '0'])
  assert.equal(two.code, 2, two.stderr)
  assert.match(two.stderr, /--host 127\.0\.0\.1, ::1: one address to listen on \(a host to reach is user@host\[:port\]\)/)
})
