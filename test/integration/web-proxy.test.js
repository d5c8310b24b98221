'use strict'

// Issue 34, section 3: `xpm web` behind a TLS reverse proxy, the setup docs/web.md recommends
// beyond loopback. A small node HTTPS proxy (the self-signed localhost certificate of
// test/fixtures/tls) forwards to the dashboard; chromium reaches it as https://dash.example (a
// host-resolver rule maps the name to 127.0.0.1, certificate errors ignored), so its Origin is
// https://dash.example:<port>. With the proxy's X-Forwarded-Proto and --allowed-host the page's
// POSTs (/api/watch, an action) are accepted; with a proxy that sends its upstream's Host and no
// X-Forwarded-Proto (nginx's defaults), --public-url makes them so.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createHome, fixture, freePort, waitFor } = require('../helpers/xpm')
const { startWeb, request, launchBrowser, CHROMIUM } = require('../helpers/web')
const { startProxy } = require('../helpers/web-proxy')

const skip = CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'

test('xpm web behind a TLS reverse proxy: the page watches and acts through it', { skip, timeout: 180000 }, async (t) => {
  const home = createHome(t)
  const started = await home.run(['start', fixture('tick-lines.js'), '--name', 'ticker'], { env: { TICK_MS: '500' } })
  assert.equal(started.code, 0, started.stderr)
  const browser = await launchBrowser(['--ignore-certificate-errors', '--host-resolver-rules=MAP dash.example 127.0.0.1'])
  t.after(() => browser.close())
  const pageErrors = []

  // opens the page at url, waits for its table, presses restart (app) and resolves the output
  async function restartThrough (url, web) {
    const page = await browser.newPage()
    page.on('pageerror', (err) => pageErrors.push(err.message))
    await page.goto(url)
    await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 1, { timeout: 30000 })
    await waitFor(async () => {
      const { json } = await request(web.port, { path: '/api/status', headers: { authorization: `Bearer ${web.token}` } })
      return Array.isArray(json.watching) && json.watching.length === 1
    }, { timeout: 10000, message: 'the page\'s POST /api/watch to be accepted' })
    const before = (await home.jlist()).find((p) => p.name === 'ticker').pid
    await page.click('#actions button[data-scope="app"][data-action="restart"]')
    await page.waitForFunction(() => /\[xpm\] restarted ticker|xpm: .*\[XPM_ERR/.test(document.querySelector('#action-output').textContent), { timeout: 30000 })
    const output = await page.$eval('#action-output', (el) => el.textContent)
    await page.close()
    assert.match(output, /\[xpm\] restarted ticker/)
    assert.notEqual((await home.jlist()).find((p) => p.name === 'ticker').pid, before)
  }

  await t.test('X-Forwarded-Proto under an --allowed-host name', async () => {
    const web = await startWeb(home, ['--allowed-host', 'dash.example'], t)
    const proxy = await startProxy(t, web.port, { tls: true, forwardedProto: 'https' })
    const printed = new URL(web.url)
    const url = `https://dash.example:${proxy.port}${printed.pathname}${printed.search}${printed.hash}`
    await restartThrough(url, web)
    assert.ok(proxy.seen.some((r) => r.line.startsWith('POST /api/action') && r.headers.origin === `https://dash.example:${proxy.port}`))
    // the same stated scheme from a client that reached the dashboard directly proves nothing
    const { json: session } = await request(web.port, { path: '/api/session', headers: { authorization: `Bearer ${web.token}` } })
    const direct = await request(web.port, {
      method: 'POST',
      path: '/api/action',
      headers: { authorization: `Bearer ${web.token}`, 'x-xpm-csrf': session.csrf, 'content-type': 'application/json', origin: `https://127.0.0.1:${web.port}`, 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ action: 'restart', target: 'ticker' })
    })
    assert.equal(direct.status, 403)
    assert.match(direct.json.error.message, /Origin/)
    await web.stop()
  })

  await t.test('--public-url, through a proxy that sends its upstream\'s Host and no X-Forwarded-Proto', async () => {
    const [port, target] = [await freePort(), await freePort()]
    const web = await startWeb(home, ['--port', String(target), '--public-url', `https://dash.example:${port}`], t)
    assert.match(web.url, new RegExp(`^https://dash\\.example:${port}/#token=`))
    assert.ok(web.output().stdout.includes(`(listening on 127.0.0.1:${target})`), web.output().stdout)
    await startProxy(t, target, { tls: true, upstreamHost: true, port })
    await restartThrough(web.url, { ...web, port: target })
    await web.stop()
    assert.deepEqual(pageErrors, [])
  })
})
