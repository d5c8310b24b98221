'use strict'

// A scrape whose sampling round is slow (held back here by an injected sampler) is answered,
// complete, on a real HTTP server: the endpoint's idle timeout (4 s) used to destroy the socket
// of a request still waiting for its round (a connection reset instead of an answer).
const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const net = require('node:net')
const { Supervisor } = require('../../daemon/supervisor')
const { openEndpoint, LIMITS } = require('../../daemon/prometheus')
const { fakeLauncher, fakeSpec } = require('../helpers/fake-launcher')
const { stubMetrics } = require('../helpers/prometheus')

function get (port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

// An endpoint attached to one app, whose sampler's fresh() resolves only when released.
async function slowEndpoint (t, limits) {
  const endpoint = await openEndpoint({ host: '127.0.0.1', port: 0 }, limits)
  t.after(() => endpoint.close())
  const fake = fakeLauncher()
  const supervisor = new Supervisor({ launcher: fake.launcherFor })
  t.after(() => supervisor.close())
  const metrics = stubMetrics()
  const held = []
  metrics.fresh = () => new Promise((resolve) => held.push(resolve))
  t.after(() => { for (const release of held) release() })
  endpoint.attach({ supervisor, metrics, version: '1.0.0' })
  await supervisor.start([fakeSpec('api')])
  return { port: endpoint.address.port, held }
}

const complete = (res) => {
  assert.equal(res.status, 200)
  assert.match(res.body, /^xpm_process_up\{app="api",id="0",instance="0"\} 1$/m)
  assert.match(res.body, /^process_resident_memory_bytes \d+$/m)
}

test('a sampling round held back past the 4 s idle timeout: the scrape gets its whole answer once the round is done', async (t) => {
  const { port, held } = await slowEndpoint(t, LIMITS)
  const started = Date.now()
  const answer = get(port, '/metrics')
  const holdMs = LIMITS.IDLE_MS + 700
  setTimeout(() => { for (const release of held) release() }, holdMs)
  complete(await answer)
  assert.ok(Date.now() - started >= holdMs - 50, 'answered after the round, not before')
})

test('a round that never ends: the scrape is answered with the samples there are within the scraper\'s X-Prometheus-Scrape-Timeout-Seconds; idle connections still close', async (t) => {
  const limits = { ...LIMITS, WAIT_MS: 600, IDLE_MS: 200, KEEP_ALIVE_MS: 200, HEADERS_MS: 400, REQUEST_MS: 500, CHECK_MS: 100 }
  const { port } = await slowEndpoint(t, limits)
  let started = Date.now()
  complete(await get(port, '/metrics', { 'X-Prometheus-Scrape-Timeout-Seconds': '1.2' }))
  const took = Date.now() - started
  assert.ok(took >= 850 && took < 1200, `answered at 1.2 s less a quarter, in ${took} ms`)

  started = Date.now()
  complete(await get(port, '/metrics'))
  assert.ok(Date.now() - started >= limits.WAIT_MS - 50, 'without the header: WAIT_MS')

  // a connection that sends nothing is still closed once idle
  const socket = net.connect(port, '127.0.0.1')
  t.after(() => socket.destroy())
  await new Promise((resolve, reject) => {
    socket.once('close', resolve)
    setTimeout(() => reject(new Error('an idle connection was left open')), 3000).unref()
  })
})
