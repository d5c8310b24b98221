'use strict'

// `xpm web` in a real browser (Debian's chromium through puppeteer-core) against a real daemon:
// the table, a chart drawing points, a log line arriving, a reload pressed on the page with zero
// failed requests on the app's port, and the security checks (token, Host, cross-site POST,
// --read-only). One browser for the file.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { createHome, fixture, freePort, waitFor } = require('../helpers/xpm')
const { startWeb, request, launchBrowser, CHROMIUM } = require('../helpers/web')
const { startLoad } = require('../helpers/load')

const skip = CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'

test('xpm web: the live page, its actions and its security checks', { skip, timeout: 180000 }, async (t) => {
  const home = createHome(t)
  const appPort = await freePort()
  for (const args of [
    ['start', fixture('echo-http.js'), '--name', 'echo', '-i', '2'],
    ['start', fixture('tick-lines.js'), '--name', 'ticker']
  ]) {
    const res = await home.run(args, { env: { PORT: String(appPort), TICK_MS: '200' } })
    assert.equal(res.code, 0, res.stderr)
  }
  const web = await startWeb(home, [], t)
  const auth = { authorization: `Bearer ${web.token}` }
  const browser = await launchBrowser()
  t.after(() => browser.close())

  await t.test('no page open: no subscription to the daemon', async () => {
    const { json } = await request(web.port, { path: '/api/status', headers: auth })
    assert.equal(json.subscribed, false)
  })

  await t.test('requests without the token, with a wrong Host or cross-site are refused', async () => {
    const none = await request(web.port, { path: '/api/processes' })
    assert.equal(none.status, 401)
    assert.equal(none.json.error.code, 'XPM_ERR_WEB_FORBIDDEN')
    const wrong = await request(web.port, { path: '/api/processes', headers: { authorization: 'Bearer nope' } })
    assert.equal(wrong.status, 401)
    const rebound = await request(web.port, { path: `/api/processes?token=${web.token}`, headers: { host: `attacker.example:${web.port}` } })
    assert.equal(rebound.status, 403)
    assert.match(rebound.json.error.message, /Host "attacker\.example/)
    // the token only as a header: not from a cookie (they reach every port of the host) nor the query
    assert.equal((await request(web.port, { path: '/api/processes', headers: { cookie: `xpm_web_${web.port}=${web.token}` } })).status, 401)
    assert.equal((await request(web.port, { path: `/api/processes?token=${web.token}` })).status, 401)
    const authJson = { ...auth, 'content-type': 'application/json' }
    const body = JSON.stringify({ action: 'stop', target: 'echo' })
    const noCsrf = await request(web.port, { method: 'POST', path: '/api/action', headers: authJson, body })
    assert.equal(noCsrf.status, 403)
    assert.match(noCsrf.json.error.message, /x-xpm-csrf/)
    const { json: session } = await request(web.port, { path: '/api/session', headers: auth })
    const crossOrigin = await request(web.port, { method: 'POST', path: '/api/action', headers: { ...authJson, 'x-xpm-csrf': session.csrf, origin: 'http://attacker.example' }, body })
    assert.equal(crossOrigin.status, 403)
    assert.match(crossOrigin.json.error.message, /Origin/)
    // the page itself holds no secret and needs no token; it expires an earlier version's cookie
    const page = await request(web.port, { path: '/', headers: { accept: 'text/html', cookie: `xpm_web_${web.port}=old` } })
    assert.equal(page.status, 200)
    assert.match(page.headers['content-security-policy'], /script-src 'self';/)
    assert.match(String(page.headers['set-cookie']), new RegExp(`^xpm_web_${web.port}=; Max-Age=0;`))
    assert.doesNotMatch(page.body, /<script>|<script [^>]*>[^<]/) // no inline script
  })

  await t.test('bad options exit 2, a port in use exits 1, each saying why', async () => {
    const bad = await home.run(['web', '--port', '70000'])
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--port .*got "70000" \[XPM_ERR_BAD_ARGUMENT\]/)
    const busy = await home.run(['web', '--port', String(web.port)])
    assert.equal(busy.code, 1)
    assert.match(busy.stderr, /the port is in use .*\[XPM_ERR_WEB_LISTEN\]/)
  })

  await t.test("PM2's `pm2 web` answer: the host and the processes in PM2's shape", async () => {
    const { status, json } = await request(web.port, { path: '/', headers: auth })
    assert.equal(status, 200)
    assert.equal(typeof json.system_info.hostname, 'string')
    assert.ok(Array.isArray(json.monit.loadavg))
    assert.deepEqual(json.processes.map((p) => p.name).sort(), ['echo', 'echo', 'ticker'])
    assert.ok(json.processes.every((p) => typeof p.pm_id === 'number' && p.pm2_env.status === 'online'))
  })

  const page = await browser.newPage()
  await page.setViewport({ width: 1300, height: 900 })
  const pageErrors = []
  page.on('pageerror', (err) => pageErrors.push(err.message))

  await t.test('the token in the fragment goes into the tab\'s sessionStorage, then leaves the address bar; no cookie', async () => {
    assert.match(web.url, /^http:\/\/127\.0\.0\.1:\d+\/#token=/)
    await page.goto(web.url)
    assert.equal(new URL(page.url()).hash, '')
    assert.equal(await page.evaluate(() => window.sessionStorage.getItem('xpm-web-token')), web.token)
    assert.deepEqual(await page.cookies(), [])
  })

  await t.test('the table lists the processes, live', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 3, { timeout: 30000 })
    const rows = await page.$$eval('#rows .row:not([hidden])', (els) => els.map((el) => [...el.children].map((c) => c.textContent)))
    assert.deepEqual(rows.map((r) => r[1]).sort(), ['echo [0]', 'echo [1]', 'ticker [0]'])
    assert.ok(rows.every((r) => r[3] === 'online'), JSON.stringify(rows))
    const { json } = await request(web.port, { path: '/api/status', headers: auth })
    assert.equal(json.subscribed, true)
  })

  await t.test('sorting and the filter', async () => {
    await page.type('#filter', 'ticker')
    await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 1, { timeout: 10000 })
    await page.$eval('#filter', (el) => { el.value = '' })
    await page.type('#filter', ' ')
    await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 3, { timeout: 10000 })
    await page.click('#thead span[data-key="name"]')
    await page.click('#thead span[data-key="name"]') // descending
    await page.waitForFunction(() => document.querySelector('#rows .row:not([hidden]) span:nth-child(2)').textContent === 'ticker [0]', { timeout: 10000 })
  })

  await t.test('a chart draws points, a log line appears (stdout and stderr told apart)', async () => {
    const tickerId = (await home.jlist()).find((p) => p.name === 'ticker').id
    await page.click(`#rows .row[data-id="${tickerId}"]`)
    await page.waitForFunction(() => window.xpmWeb.charts.plots.cpu.data[0].length >= 2, { timeout: 30000 })
    await page.waitForFunction(() => document.querySelector('#logs .line.out') && document.querySelector('#logs .line.err'), { timeout: 30000 })
    const text = await page.$eval('#logs .line.err', (el) => el.textContent)
    assert.match(text, /warn \d+/)
    // one stream for the page (table and log), one logs request to the daemon
    await waitFor(async () => {
      const { json } = await request(web.port, { path: '/api/status', headers: auth })
      return json.pages === 1 && json.logStreams === 1
    }, { timeout: 10000, message: 'one page stream and one log stream' })
    await page.click('#pause')
    const held = await page.$$eval('#logs .line', (els) => els.length)
    await page.waitForFunction(() => /resume \(\d+ new\)/.test(document.querySelector('#pause').textContent), { timeout: 10000 })
    assert.equal(await page.$$eval('#logs .line', (els) => els.length), held) // paused: nothing added
    await page.click('#pause')
  })

  await t.test('reload pressed on the page: new pids, steps shown, zero failed requests', async () => {
    const before = (await home.jlist()).filter((p) => p.name === 'echo').map((p) => p.pid).sort()
    const echoId = (await home.jlist()).find((p) => p.name === 'echo').id
    await page.click(`#rows .row[data-id="${echoId}"]`)
    await page.waitForFunction((id) => window.xpmWeb.state.selectedId === id && window.xpmWeb.state.selectedApp === 'echo', { timeout: 10000 }, echoId)
    const load = startLoad(appPort, { concurrency: 2 })
    let stats
    try {
      await page.click('#actions button[data-scope="app"][data-action="reload"]')
      await page.waitForFunction(() => /reloaded echo/.test(document.querySelector('#action-output').textContent), { timeout: 90000 })
    } finally {
      stats = await load.stop()
    }
    const output = await page.$eval('#action-output', (el) => el.textContent)
    assert.match(output, /new worker pid \d+ starting/)
    assert.match(output, /reload done/)
    const after = (await home.jlist()).filter((p) => p.name === 'echo').map((p) => p.pid).sort()
    assert.equal(after.length, 2)
    assert.ok(after.every((pid) => !before.includes(pid)), `${before} → ${after}`)
    assert.equal(stats.failed, 0, JSON.stringify(stats.errors))
    assert.ok(stats.ok > 0)
    await page.waitForFunction(() => /restarted/.test(document.querySelector('#journal').textContent), { timeout: 20000 })
  })

  await t.test('stop and start one process from the page, with the CLI\'s messages', async () => {
    const id = await page.evaluate(() => window.xpmWeb.state.selectedId)
    await page.click('#actions button[data-scope="id"][data-action="stop"]')
    await page.waitForFunction((id) => document.querySelector('#action-output').textContent.includes(`[xpm] stopped ${id} (1 process)`), { timeout: 30000 }, id)
    assert.equal((await home.jlist()).find((p) => p.id === id).status, 'stopped')
    await page.waitForFunction((id) => document.querySelector(`#rows .row[data-id="${id}"] span:nth-child(4)`).textContent === 'stopped', { timeout: 10000 }, id)
    await page.click('#actions button[data-scope="id"][data-action="start"]')
    await page.waitForFunction((id) => document.querySelector('#action-output').textContent.includes(`[xpm] started ${id}`), { timeout: 30000 }, id)
    assert.match(await page.$eval('#action-output', (el) => el.textContent), /echo\[\d\] online \(pid \d+\)/)
    assert.equal((await home.jlist()).find((p) => p.id === id).status, 'online')
  })

  await t.test('the JSON API: a restart answers its steps, then the outcome as the CLI says it', async () => {
    const { json: session } = await request(web.port, { path: '/api/session', headers: auth })
    const headers = { ...auth, 'content-type': 'application/json', 'x-xpm-csrf': session.csrf }
    const res = await request(web.port, { method: 'POST', path: '/api/action', headers, body: JSON.stringify({ action: 'restart', target: 'ticker' }) })
    assert.equal(res.status, 200)
    const lines = res.body.trim().split('\n').map((l) => JSON.parse(l))
    assert.match(lines.find((l) => l.type === 'step').text, /^\[xpm\] ticker\[0\] online \(pid \d+\)$/)
    assert.deepEqual(lines.at(-1), { type: 'done', action: 'restart', target: 'ticker', ok: true, message: '[xpm] restarted ticker' })
    const missing = await request(web.port, { method: 'POST', path: '/api/action', headers, body: JSON.stringify({ action: 'restart', target: 'ghost' }) })
    const done = JSON.parse(missing.body.trim().split('\n').at(-1))
    assert.equal(done.ok, false)
    assert.equal(done.code, 'XPM_ERR_APP_NOT_FOUND')
    assert.equal(done.exitCode, 1)
    const bad = await request(web.port, { method: 'POST', path: '/api/action', headers, body: JSON.stringify({ action: 'delete', target: 'ticker' }) })
    assert.equal(bad.status, 400)
    assert.equal(bad.json.error.code, 'XPM_ERR_BAD_ARGUMENT')
  })

  await t.test('a cross-site page cannot act, even from another port of 127.0.0.1 (same site)', async () => {
    const evil = http.createServer((req, res) => res.end('<html><body>elsewhere</body></html>'))
    await new Promise((resolve) => evil.listen(0, '127.0.0.1', resolve))
    t.after(() => evil.close())
    const other = await browser.newPage()
    await other.goto(`http://127.0.0.1:${evil.address().port}/`)
    const target = `http://127.0.0.1:${web.port}/api/action`
    await other.evaluate(async (url) => {
      await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ action: 'stop', target: 'echo' }) }).catch(() => {})
      await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-xpm-csrf': 'guess' }, body: JSON.stringify({ action: 'stop', target: 'echo' }) }).catch(() => {})
    }, target)
    await other.close()
    const { json } = await request(web.port, { path: '/api/processes', headers: auth })
    assert.ok(json.filter((p) => p.name === 'echo').every((p) => p.status === 'online'))
  })

  await t.test('the page gone, the subscription to the daemon goes too', async () => {
    await page.close()
    await waitFor(async () => {
      const { json } = await request(web.port, { path: '/api/status', headers: auth })
      return json.subscribed === false && json.pages === 0 && json.logStreams === 0
    }, { timeout: 20000, message: 'the web server to drop its subscription' })
    assert.deepEqual(pageErrors, [])
  })

  await t.test('--read-only refuses every action', async () => {
    const ro = await startWeb(home, ['--read-only'], t)
    const roAuth = { authorization: `Bearer ${ro.token}` }
    const { json: session } = await request(ro.port, { path: '/api/session', headers: roAuth })
    assert.equal(session.readOnly, true)
    for (const action of ['restart', 'reload', 'stop', 'start']) {
      const res = await request(ro.port, { method: 'POST', path: '/api/action', headers: { ...roAuth, 'content-type': 'application/json', 'x-xpm-csrf': session.csrf }, body: JSON.stringify({ action, target: 'echo' }) })
      assert.equal(res.status, 403)
      assert.equal(res.json.error.code, 'XPM_ERR_WEB_READ_ONLY')
    }
    await ro.stop()
  })

  await t.test('--daemon: the dashboard runs as an app of xpm, its token kept in XPM_HOME/web-<name>.token, one per dashboard, never an earlier one', async () => {
    const port = await freePort()
    const first = await home.run(['web', '--daemon', '--port', String(port)])
    assert.equal(first.code, 0, first.stderr)
    const url = new URL(/(http:\/\/\S+)/.exec(first.stdout)[1])
    const token = new URLSearchParams(url.hash.slice(1)).get('token') ?? url.searchParams.get('token')
    const tokenFile = path.join(home.home, 'web-xpm-web.token')
    assert.equal(fs.readFileSync(tokenFile, 'utf8').trim(), token)
    assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600)
    const app = (await home.jlist()).find((p) => p.name === 'xpm-web')
    assert.equal(app.status, 'online')
    const { status } = await request(port, { path: '/api/status', headers: { authorization: `Bearer ${token}` } })
    assert.equal(status, 200)
    // its out log (0644, `xpm logs`) has the address, never the token: that stays in the 0600 file
    const logs = await waitFor(async () => {
      const res = await home.run(['logs', 'xpm-web', '--nostream', '--lines', '50'])
      return /web dashboard/.test(res.stdout) && res.stdout
    }, { timeout: 10000, message: 'the dashboard\'s line in its log' })
    assert.ok(!logs.includes(token), logs)
    assert.ok(logs.includes(`http://127.0.0.1:${port}/ (its token is in ${tokenFile})`), logs)
    const again = await home.run(['web', '--daemon', '--port', String(port)])
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, /already running/)
    assert.ok(again.stdout.includes(url.href))

    // a read-only dashboard beside it has a token of its own: its address opens nothing of the full one
    const roPort = await freePort()
    const ro = await home.run(['web', '--daemon', '--read-only', '--name', 'ro', '--port', String(roPort)])
    assert.equal(ro.code, 0, ro.stderr)
    const roToken = new URLSearchParams(new URL(/(http:\/\/\S+)/.exec(ro.stdout)[1]).hash.slice(1)).get('token')
    assert.notEqual(roToken, token)
    assert.equal((await request(port, { path: '/api/session', headers: { authorization: `Bearer ${roToken}` } })).status, 401)
    assert.equal((await home.run(['delete', 'ro'])).code, 0)

    // a dashboard running with a token this version did not write (an earlier version's
    // web.token, which it had logged): the next `xpm web --daemon` replaces it with a new token
    fs.rmSync(tokenFile)
    const rotated = await home.run(['web', '--daemon', '--port', String(port)])
    assert.equal(rotated.code, 0, rotated.stderr)
    assert.match(rotated.stdout, /started xpm-web/)
    const newToken = fs.readFileSync(tokenFile, 'utf8').trim()
    assert.notEqual(newToken, token)
    assert.ok(rotated.stdout.includes(`#token=${newToken}`))
    await waitFor(async () => (await request(port, { path: '/api/status', headers: { authorization: `Bearer ${newToken}` } })).status === 200, { message: 'the replaced dashboard answering its new token' })
    assert.equal((await request(port, { path: '/api/status', headers: { authorization: `Bearer ${token}` } })).status, 401)
    assert.equal((await home.run(['delete', 'xpm-web'])).code, 0)
  })
})
