'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, waitFor, freePort, fixture } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')

// A scale-down removes workers while the others keep serving: like a reload, the removed ones
// drain first, so no request fails (new connections and keep-alive ones).
test('scale 3 → 1 → 3 under load: zero failed requests, new connections and keep-alive', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const start = await h.run(['start', fixture('echo-http.js'), '-i', '3', '--name', 'api'], { env: { PORT: String(port) } })
  assert.equal(start.code, 0, start.stderr)
  const fresh = startLoad(port, { concurrency: 4, keepAlive: false })
  const kept = startLoad(port, { concurrency: 4, keepAlive: true })
  await waitFor(() => fresh.stats.ok > 20 && kept.stats.ok > 20)
  for (const n of ['1', '3', '1']) {
    const res = await h.run(['scale', 'api', n])
    assert.equal(res.code, 0, res.stderr + res.stdout)
    await waitFor(async () => (await h.jlist()).filter((p) => p.status === 'online').length === Number(n) && (await h.jlist()).length === Number(n))
    const okNow = fresh.stats.ok
    await waitFor(() => fresh.stats.ok > okNow + 50)
  }
  const [a, b] = [await fresh.stop(), await kept.stop()]
  assert.equal(a.failed, 0, `new connections: ${JSON.stringify(a.errors)}`)
  assert.equal(b.failed, 0, `keep-alive: ${JSON.stringify(b.errors)}`)
})
