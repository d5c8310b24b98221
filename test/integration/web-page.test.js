'use strict'

// Issue 34: what the dashboard page shows, in chromium against a real daemon: colours rendered
// and a right-to-left override neutralised (log and journal), times on log lines, "no output yet"
// for a silent app, no /api/watch refused while switching apps (nor any console error), the
// journal as an HTML table, a crash-looping process marked, chart time labels apart, full names
// on hover, and a confirmation before stopping a whole app.

/* global requestAnimationFrame, getComputedStyle */
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createHome, fixture, waitFor } = require('../helpers/xpm')
const { startWeb, request, launchBrowser, openDashboard, CHROMIUM } = require('../helpers/web')

const skip = CHROMIUM ? false : 'no chromium at /usr/bin/chromium (apt-get install chromium)'
const LONG = 'a-really-long-application-name-that-cannot-fit-in-its-column'

test('the dashboard page: rendering, switching apps, journal, crash loops, charts, confirmation', { skip, timeout: 240000 }, async (t) => {
  const home = createHome(t)
  for (const [args, env] of [
    [['start', fixture('ansi-lines.js'), '--name', 'colors'], {}],
    [['start', fixture('idle.js'), '--name', 'silent'], {}],
    [['start', fixture('ansi-lines.js'), '--name', 'crashy'], { CRASH_AFTER_MS: '1200' }],
    [['start', fixture('idle.js'), '--name', 'pair', '-i', '2'], {}],
    [['start', fixture('idle.js'), '--name', LONG], {}]
  ]) {
    const res = await home.run(args, { env })
    assert.equal(res.code, 0, res.stderr)
  }
  const ids = Object.fromEntries((await home.jlist()).map((p) => [p.name, p.id]))
  const web = await startWeb(home, [], t)
  const auth = { authorization: `Bearer ${web.token}` }
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const page = await browser.newPage()
  await page.setViewport({ width: 1300, height: 900 })
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()) })
  const watchAnswers = []
  page.on('response', (res) => { if (res.url().includes('/api/watch')) watchAnswers.push(res.status()) })
  await openDashboard(page, web)
  await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 6, { timeout: 30000 })
  const selectRow = async (id) => {
    await page.click(`#rows .row[data-id="${id}"]`)
    await page.waitForFunction((id) => window.xpmWeb.state.selectedId === id, { timeout: 10000 }, id)
  }

  await t.test('log lines: colours rendered, the override shown as a mark, each line with its time', async () => {
    await selectRow(ids.colors)
    await page.waitForFunction(() => [...document.querySelectorAll('#logs .line')].some((l) => l.textContent.includes('gnp.exe')), { timeout: 30000 })
    const text = await page.$eval('#logs', (el) => el.textContent)
    assert.ok(!text.includes('\x1b') && !text.includes('[31m') && !text.includes('[0m'), JSON.stringify(text.slice(0, 300)))
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(text), 'a bidi control reached the page')
    assert.equal(await page.$eval('#logs .line .text span.fg-1', (el) => el.textContent), 'red alert')
    assert.equal(await page.$eval('#logs .line .text span.sgr-bold.fg-2', (el) => el.textContent), 'bold green')
    assert.equal(await page.$eval('#logs .line.err .text span.fg-3', (el) => el.textContent), 'warn:')
    const rlo = await page.$$eval('#logs .line', (ls) => ls.filter((l) => l.textContent.includes('gnp.exe')).map((l) => ({ dir: l.dir, text: l.querySelector('.text').textContent, mark: l.querySelector('.ctl')?.textContent })))
    assert.deepEqual(rlo[0], { dir: 'ltr', text: 'user uploaded <U+202E>gnp.exe<U+202C> and more text after it', mark: '<U+202E>' })
    const times = await page.$$eval('#logs .line .time', (els) => els.map((el) => el.textContent))
    assert.ok(times.length >= 4 && times.every((s) => /^\d\d:\d\d:\d\d$/.test(s)), JSON.stringify(times))
  })

  await t.test('switching apps tells the server nothing for the stream it closed, and no request is refused', async () => {
    const held = { events: [], watch: [] }
    let phase = 'open'
    const gate = () => { let open; const p = new Promise((resolve) => { open = resolve }); p.open = open; return p }
    const releaseWatch = gate()
    const releaseEvents = gate()
    const onRequest = (req) => {
      const url = req.url()
      const go = () => req.continue().catch(() => {}) // interception already off: nothing to do
      if (url.includes('/api/events')) {
        held.events.push(url)
        return releaseEvents.then(go)
      }
      if (url.includes('/api/watch')) {
        held.watch.push({ phase, body: req.postData() })
        return releaseWatch.then(go)
      }
      go()
    }
    page.on('request', onRequest) // before interception starts: no request is left waiting
    await page.setRequestInterception(true)
    try {
      // select another app and, before its stream reopens, change the rows in view (the filter)
      await page.evaluate((id) => {
        document.querySelector(`#rows .row[data-id="${id}"]`).click()
        const filter = document.querySelector('#filter')
        filter.value = 'silent'
        filter.dispatchEvent(new Event('input'))
      }, ids.silent)
      await waitFor(() => held.events.length === 1, { timeout: 10000, message: 'the page to reopen its stream' })
      await waitFor(async () => (await request(web.port, { path: '/api/status', headers: auth })).json.pages === 0, { timeout: 10000, message: 'the server to see the old stream closed' })
      phase = 'closed'
      releaseWatch.open() // what the page sent before the close reaches the server after it
      // the rows in view change again while no stream is open
      await page.evaluate(() => {
        const filter = document.querySelector('#filter')
        filter.value = ''
        filter.dispatchEvent(new Event('input'))
      })
      await page.waitForFunction(() => document.querySelectorAll('#rows .row:not([hidden])').length === 6, { timeout: 10000 })
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
      assert.deepEqual(held.watch.filter((w) => w.phase === 'closed'), [], 'posted /api/watch for a closed stream')
    } finally {
      releaseWatch.open()
      releaseEvents.open()
    }
    await page.waitForFunction(() => document.querySelector('#logs .empty')?.textContent === 'no output yet', { timeout: 30000 })
    await page.setRequestInterception(false)
    page.off('request', onRequest)
    await waitFor(() => watchAnswers.length >= held.watch.length, { timeout: 10000, message: 'the answers to /api/watch' })
    assert.ok(watchAnswers.every((s) => s === 204), `answers to /api/watch: ${watchAnswers}`)
    assert.deepEqual(errors, [])
  })

  await t.test('the journal is an HTML table, its last lines rendered as the log\'s', async () => {
    await selectRow(ids.crashy)
    await page.waitForFunction(() => document.querySelectorAll('#journal table tbody tr').length >= 1, { timeout: 30000 })
    assert.deepEqual(await page.$$eval('#journal table th', (els) => els.map((el) => el.textContent)), ['when', 'process', 'what happened'])
    await page.waitForFunction(() => [...document.querySelectorAll('#journal tbody td.what')].some((td) => /crashed: exit code 1/.test(td.textContent)), { timeout: 30000 })
    const rows = await page.$$eval('#journal tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)))
    assert.ok(rows.every((r) => r.length === 3 && /^\d\d:\d\d:\d\d$/.test(r[0]) && /^crashy\[0\]/.test(r[1])), JSON.stringify(rows))
    const text = await page.$eval('#journal', (el) => el.textContent)
    assert.ok(!/[│─┌└]/.test(text), 'box-drawing characters in the journal')
    assert.ok(!text.includes('\x1b') && !/[\u202a-\u202e]/.test(text))
    assert.ok(await page.$('#journal .last-lines span.fg-1'), 'the red line among the last lines')
  })

  await t.test('a crash-looping process is marked, a healthy one is not', async () => {
    await page.waitForFunction((id) => document.querySelector(`#rows .row[data-id="${id}"]`).classList.contains('crashloop'), { timeout: 60000 }, ids.crashy)
    for (const name of ['colors', 'silent', LONG]) {
      assert.equal(await page.$eval(`#rows .row[data-id="${ids[name]}"]`, (el) => el.classList.contains('crashloop')), false, name)
    }
    const colour = await page.$eval(`#rows .row[data-id="${ids.crashy}"] [data-col="restarts"]`, (el) => getComputedStyle(el).color)
    assert.equal(colour, 'rgb(207, 34, 46)')
  })

  await t.test('chart time labels do not overlap', async () => {
    await selectRow(ids.colors)
    await page.waitForFunction(() => window.xpmWeb.charts.plots.cpu.data[0].length >= 5, { timeout: 30000 })
    const overlaps = await page.evaluate(() => {
      const ctx = document.createElement('canvas').getContext('2d')
      const found = []
      for (const [key, u] of Object.entries(window.xpmWeb.charts.plots)) {
        const axis = u.axes[0]
        ctx.font = axis.font?.[0] ?? '12px system-ui'
        const labels = (axis._values || []).map((text, i) => ({ text, x: u.valToPos(axis._splits[i], 'x') }))
        for (let i = 1; i < labels.length; i++) {
          const gap = labels[i].x - labels[i - 1].x
          const need = (ctx.measureText(labels[i].text).width + ctx.measureText(labels[i - 1].text).width) / 2
          if (gap < need + 4) found.push(`${key}: ${labels[i - 1].text} / ${labels[i].text} ${Math.round(gap)} px apart, ${Math.round(need)} needed`)
        }
      }
      return found
    })
    assert.deepEqual(overlaps, [])
  })

  await t.test('a name cut short shows in full on hover', async () => {
    const cell = await page.$eval(`#rows .row[data-id="${ids[LONG]}"] [data-col="name"]`, (el) => ({ title: el.title, cut: el.scrollWidth > el.clientWidth }))
    assert.deepEqual(cell, { title: `${LONG} [0]`, cut: true })
    await selectRow(ids[LONG])
    assert.match(await page.$eval('#sel-title', (el) => el.title), new RegExp(`^${LONG} \\[0\\] · id`))
  })

  await t.test('stopping a whole app asks first; cancelled, nothing stops', async () => {
    await selectRow(ids.pair)
    const dialogs = []
    let answer = false
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      return answer ? d.accept() : d.dismiss()
    })
    await page.click('#actions button[data-scope="app"][data-action="stop"]')
    await waitFor(() => dialogs.length === 1, { timeout: 10000, message: 'the confirmation' })
    assert.equal(dialogs[0], 'Stop pair: all 2 running processes of it?')
    assert.equal(await page.$eval('#action-output', (el) => el.textContent), '')
    assert.ok((await home.jlist()).filter((p) => p.name === 'pair').every((p) => p.status === 'online'))
    answer = true
    await page.click('#actions button[data-scope="app"][data-action="stop"]')
    await page.waitForFunction(() => document.querySelector('#action-output').textContent.includes('[xpm] stopped pair (2 processes)'), { timeout: 30000 })
    assert.equal(dialogs.length, 2)
    // one process: no question
    await page.click('#actions button[data-scope="id"][data-action="start"]')
    await page.waitForFunction((id) => document.querySelector('#action-output').textContent.includes(`[xpm] started ${id}`), { timeout: 30000 }, ids.pair)
    assert.equal(dialogs.length, 2)
    assert.deepEqual(errors, [])
  })
})
