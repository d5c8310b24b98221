'use strict'

// Issue 34, section 2: the dashboard's credential never leaves its origin. In chromium, against a
// real daemon: the page is opened through a forwarding proxy that records every request the
// dashboard receives (no request line carries the token: it travels in the fragment), then the
// same tab visits another HTTP server on another loopback port. Everything that server received
// (cookies, headers, URLs) is replayed against the dashboard and refused; back on the dashboard,
// the table, the log stream and an action still work, a cut stream opens again with a new ticket,
// and the stream URLs' tickets work once.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { createHome, fixture, waitFor } = require('../helpers/xpm')
const { startWeb, request, launchBrowser, CHROMIUM } = require('../helpers/web')
const { startProxy, startNeighbour } = require('../helpers/web-proxy')

const skip = CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'

// the status of a GET, without reading the body (a stream that was let in would never end)
function statusOf (port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false, timeout: 10000 }, (res) => {
      resolve(res.statusCode)
      res.destroy()
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
  })
}

test('xpm web: nothing another local server receives lets it into the dashboard', { skip, timeout: 180000 }, async (t) => {
  const home = createHome(t)
  const started = await home.run(['start', fixture('tick-lines.js'), '--name', 'ticker'], { env: { TICK_MS: '200' } })
  assert.equal(started.code, 0, started.stderr)
  const web = await startWeb(home, [], t)
  const front = await startProxy(t, web.port) // sees each request exactly as the dashboard does
  const neighbour = await startNeighbour(t)
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const page = await browser.newPage()
  const pageErrors = []
  page.on('pageerror', (err) => pageErrors.push(err.message))
  const address = new URL(web.url)
  address.port = String(front.port)
  const live = async () => {
    await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 1, { timeout: 30000 })
    await page.waitForFunction(() => window.xpmWeb.state.selectedApp === 'ticker' && document.querySelector('#logs .line'), { timeout: 30000 })
  }

  await t.test('the token travels in the fragment: no request line the dashboard sees carries it, no cookie is set', async () => {
    await page.goto(address.href)
    await live()
    assert.equal(new URL(page.url()).hash, '') // out of the address bar and the history
    assert.deepEqual(await page.cookies(), [])
    assert.ok(front.seen.length > 5)
    for (const { line, headers } of front.seen) {
      assert.ok(!line.includes(web.token), line)
      assert.ok(!String(headers.cookie ?? '').includes(web.token), line)
    }
    assert.ok(front.seen.some((r) => /^GET \/api\/events\?(logs=ticker&)?ticket=/.test(r.line)), front.seen.map((r) => r.line).join('\n'))
    assert.ok(front.seen.filter((r) => r.line.startsWith('GET /api/session')).every((r) => r.headers.authorization === `Bearer ${web.token}`))
    assert.match(web.url, /\/#token=/)
  })

  await t.test('another local server visited next receives nothing that works against the dashboard', async () => {
    await page.goto(`http://127.0.0.1:${neighbour.port}/?from=test`)
    await waitFor(() => neighbour.seen.length > 0, { timeout: 10000, message: 'the neighbour to be visited' })
    assert.equal(await page.evaluate(() => window.sessionStorage.length), 0)
    for (const { url, headers } of neighbour.seen) {
      const replay = { ...headers }
      delete replay.host
      const query = new URL(url, 'http://x').search
      for (const path of ['/api/processes', `/api/processes${query}`, '/api/session', `/api/events${query}`, '/pm2']) {
        assert.equal(await statusOf(web.port, path, replay), 401, `${path} with ${JSON.stringify(replay)}`)
      }
      const action = await request(web.port, { method: 'POST', path: '/api/action', headers: { ...replay, 'content-type': 'application/json' }, body: JSON.stringify({ action: 'stop', target: 'ticker' }) })
      assert.equal(action.status, 401)
      assert.ok(!JSON.stringify({ url, headers }).includes(web.token), JSON.stringify({ url, headers }))
    }
    assert.equal((await home.jlist()).find((p) => p.name === 'ticker').status, 'online')
  })

  await t.test('back on the dashboard in the same tab: the table, the log stream and an action still work', async () => {
    const before = (await home.jlist()).find((p) => p.name === 'ticker').pid
    await page.goto(`http://127.0.0.1:${front.port}/`) // no token in the address: the tab keeps it
    await live()
    await page.click('#actions button[data-scope="app"][data-action="restart"]')
    await page.waitForFunction(() => /\[xpm\] restarted ticker/.test(document.querySelector('#action-output').textContent), { timeout: 30000 })
    assert.notEqual((await home.jlist()).find((p) => p.name === 'ticker').pid, before)
    // a new tab has its own sessionStorage: without the printed address it gets nothing
    const other = await browser.newPage()
    await other.goto(`http://127.0.0.1:${front.port}/`)
    await other.waitForFunction(() => /no token/.test(document.querySelector('#conn').textContent), { timeout: 10000 })
    await other.close()
  })

  await t.test('a stream cut (a proxy restarting) opens again with a new ticket', async () => {
    const streams = () => front.seen.filter((r) => r.line.startsWith('GET /api/events?')).length
    const before = streams()
    front.drop()
    await waitFor(() => streams() > before, { timeout: 15000, message: 'the page to open its stream again' })
    await page.waitForFunction(() => document.querySelector('#conn').textContent === 'live', { timeout: 15000 })
    const lines = await page.$$eval('#logs .line', (els) => els.length)
    await page.waitForFunction((n) => document.querySelectorAll('#logs .line').length > n, { timeout: 15000 }, lines)
  })

  await t.test('a stream ticket opens one stream: replayed from the request line, it is refused', async () => {
    const streams = front.seen.filter((r) => r.line.startsWith('GET /api/events?')).map((r) => r.line.split(' ')[1])
    assert.ok(streams.length >= 2, streams.join('\n'))
    for (const path of streams) assert.equal(await statusOf(web.port, path), 401, path)
    const { json } = await request(web.port, { path: '/api/ticket', headers: { authorization: `Bearer ${web.token}` } })
    assert.equal(await statusOf(web.port, `/api/processes?ticket=${json.ticket}`), 401) // streams only
    assert.equal(await statusOf(web.port, `/api/logs?target=ticker&ticket=${json.ticket}`), 200)
    assert.equal(await statusOf(web.port, `/api/logs?target=ticker&ticket=${json.ticket}`), 401)
    assert.deepEqual(pageErrors, [])
  })
})
