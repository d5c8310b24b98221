'use strict'

// Issue 27: `xpm web` watches only the rows the page has in view (and the selected one), against a
// real daemon with 100 processes of a tiny program and a page too short to show them all: the
// server tells the daemon those ids (`watching` in /api/status), the table still lists every
// process (the others as summary rows), scrolling moves the watched rows, and a process that is
// not in view still shows its new status when it changes. POST /api/watch is checked as every
// POST (CSRF) but allowed with --read-only: it changes what is sampled, nothing else.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createHome, fixture, waitFor } = require('../helpers/xpm')
const { startWeb, request, launchBrowser, CHROMIUM } = require('../helpers/web')

const skip = CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'
const COUNT = 100

test('xpm web watches the rows in view, not every process', { skip, timeout: 180000 }, async (t) => {
  const home = createHome(t)
  const started = await home.run(['start', fixture('tiny-sleeper.sh'), '--name', 'tiny', '-i', String(COUNT)], { timeout: 90000 })
  assert.equal(started.code, 0, started.stderr)
  await waitFor(async () => (await home.jlist()).filter((p) => p.status === 'online').length === COUNT, { timeout: 60000, interval: 500, message: `${COUNT} processes online` })
  const web = await startWeb(home, ['--read-only'], t)
  const auth = { authorization: `Bearer ${web.token}` }
  const status = async () => (await request(web.port, { path: '/api/status', headers: auth })).json
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const page = await browser.newPage()
  await page.setViewport({ width: 1280, height: 500 })
  const pageErrors = []
  page.on('pageerror', (err) => pageErrors.push(err.message))
  await page.goto(web.url)
  await page.waitForFunction((n) => new RegExp(`^${n} processes, ${n} online`).test(document.querySelector('#summary').textContent), { timeout: 30000 }, COUNT)

  const inView = () => page.$$eval('#rows .row:not([hidden])', (els) => els.map((el) => Number(el.dataset.id)))
  const sorted = (ids) => [...ids].sort((a, b) => a - b).join()
  await waitFor(async () => sorted((await status()).watching || []) === sorted(await inView()), { timeout: 10000, message: 'the server to watch the rows in view' })
  const first = await inView()
  assert.ok(first.length < COUNT / 2, `${first.length} rows in view of ${COUNT}`)
  assert.ok(first.includes(0), 'the selected one among them')

  await page.$eval('#viewport', (el) => { el.scrollTop = el.scrollHeight })
  await waitFor(async () => (await status()).watching?.includes(COUNT - 1) && !(await status()).watching.includes(1), { timeout: 10000, message: 'the watched rows to follow the scroll' })
  // the page tells its rows one request at a time, the latest set winning: a loaded machine may
  // show a set in between for a moment; the selected process is in the one that stays
  await waitFor(async () => (await status()).watching?.includes(0) && !(await status()).watching.includes(1), { timeout: 10000, message: 'the selected process stays watched' })

  // a process out of view changes status: its summary row comes without waiting for a round
  const stopped = await home.run(['stop', '5'])
  assert.equal(stopped.code, 0, stopped.stderr)
  await page.waitForFunction(() => window.xpmWeb.state.rows.get(5)?.[window.xpmWeb.state.col.status] === 'stopped', { timeout: 5000 })

  const noCsrf = await request(web.port, { method: 'POST', path: '/api/watch', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ sink: 1, ids: [0] }) })
  assert.equal(noCsrf.status, 403)
  assert.deepEqual(pageErrors, [])
})
