'use strict'

// The page at 1,000 processes, in chromium: only the rows in view are in the DOM, the table
// scrolls to the last process, and a screenshot is written (docs/images/web-1000.png when
// XPM_UPDATE_SCREENSHOTS=1, else a temporary file). The figures come from a fake daemon client
// injected into the server: a real daemon with 1,000 processes does not fit the suite's time.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { WebServer } = require('../../lib/cli/web/server')
const { createFakeDaemon } = require('../helpers/fake-web-daemon')
const { launchBrowser, CHROMIUM } = require('../helpers/web')

const skip = CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'
const SHOT = process.env.XPM_UPDATE_SCREENSHOTS === '1'
  ? path.join(__dirname, '..', '..', 'docs', 'images', 'web-1000.png')
  : path.join(os.tmpdir(), `xpm-web-1000-${process.pid}.png`)

test('1,000 processes: a screenshot, and only the rows in view in the DOM', { skip, timeout: 120000 }, async (t) => {
  const server = await new WebServer({ connect: createFakeDaemon({ count: 1000 }).connect, port: 0 }).listen()
  t.after(() => server.close())
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const page = await browser.newPage()
  await page.setViewport({ width: 1440, height: 900 })
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(server.url)
  await page.waitForFunction(() => /^1000 processes/.test(document.querySelector('#summary').textContent), { timeout: 30000 })
  await page.waitForFunction(() => window.xpmWeb.charts.plots.cpu.data[0].length >= 100 && document.querySelectorAll('#logs .line').length > 0, { timeout: 30000 })
  // a diff has arrived on top of the first frame
  await page.waitForFunction(() => window.xpmWeb.charts.data.at.length >= 121, { timeout: 30000 })
  const rowsInDom = await page.$$eval('#rows .row', (els) => els.length)
  assert.ok(rowsInDom < 80, `${rowsInDom} row elements for 1,000 processes`)
  fs.mkdirSync(path.dirname(SHOT), { recursive: true })
  await page.screenshot({ path: SHOT })
  assert.ok(fs.statSync(SHOT).size > 10000)
  if (!SHOT.includes('docs')) t.after(() => fs.rmSync(SHOT, { force: true }))

  await page.$eval('#viewport', (el) => { el.scrollTop = el.scrollHeight })
  await page.waitForFunction(() => [...document.querySelectorAll('#rows .row:not([hidden])')].some((el) => el.dataset.id === '999'), { timeout: 10000 })
  assert.deepEqual(errors, [])
})
