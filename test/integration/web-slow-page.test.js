'use strict'

// Issue 34: pages that stop reading while an app logs fast. Four raw clients of the event streams
// (two /api/events?logs=, two /api/logs) open and then read nothing while the app prints ~800 KB
// a second: what `xpm web` holds for them stays bounded (its bytes waiting, in /api/status, and
// its RSS), the lines it could not send are counted, and a client that reads again gets a
// `lines` batch saying how many were skipped, then the live lines.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const { createHome, fixture, waitFor } = require('../helpers/xpm')
const { startWeb, request } = require('../helpers/web')

const PAGES = 4
const BOUND = PAGES * 1024 * 1024 // 512 KiB of table and log each, and a batch on top

function rss (pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m[1]) * 1024
}

function openStream (port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      assert.equal(res.statusCode, 200)
      res.pause() // a page that stops reading
      resolve({ req, res })
    })
    req.on('error', reject)
  })
}

test('pages that stop reading cost xpm web a bounded amount, and resume with a count of what they missed', { timeout: 180000 }, async (t) => {
  const home = createHome(t)
  const started = await home.run(['start', fixture('fast-long-lines.js'), '--name', 'fast'])
  assert.equal(started.code, 0, started.stderr)
  const web = await startWeb(home, [], t)
  const headers = { authorization: `Bearer ${web.token}` }
  const status = async () => (await request(web.port, { path: '/api/status', headers })).json
  const streams = []
  t.after(() => { for (const s of streams) s.req.destroy() })
  for (let i = 0; i < PAGES; i++) {
    streams.push(await openStream(web.port, i % 2 ? '/api/logs?target=fast' : '/api/events?logs=fast', headers))
  }
  await waitFor(async () => (await status()).logStreams === PAGES, { timeout: 20000, message: `${PAGES} log streams` })
  const rssBefore = rss(web.pid)

  // unbounded, the bytes waiting pass BOUND within seconds; bounded, the lines skipped pile up
  let last
  await waitFor(async () => {
    last = await status()
    return last.buffered > BOUND || last.skippedLines >= PAGES * 1500
  }, { timeout: 90000, interval: 250, message: 'lines skipped for the pages that do not read' })
  assert.ok(last.buffered <= BOUND, `${last.buffered} bytes waiting for ${PAGES} pages that do not read`)
  const grown = rss(web.pid) - rssBefore
  assert.ok(grown < 64 * 1024 * 1024, `xpm web grew by ${grown} bytes`)

  // one page reads again: a batch says how many lines it missed, then live lines follow
  const { res } = streams[1]
  res.setEncoding('utf8')
  let text = ''
  res.on('data', (d) => { text += d })
  res.resume()
  const skipped = await waitFor(() => {
    for (const m of text.matchAll(/event: lines\ndata: (.*)\n/g)) {
      const batch = JSON.parse(m[1])
      if (batch.skipped > 0) return batch.skipped
    }
    return 0
  }, { timeout: 30000, message: 'a lines batch with a skipped count' })
  assert.ok(skipped > 100, `${skipped} lines skipped`)
  const after = text.slice(text.indexOf('"skipped"'))
  await waitFor(() => /"line":"line \d+ x/.test(text.slice(text.indexOf('"skipped"'))), { timeout: 10000, message: `live lines after the skipped count (${after.length} chars)` })
})
