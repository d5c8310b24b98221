'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createHome, fixture, waitFor } = require('../helpers/xpm')
const { connectOnce } = require('../../lib/cli/client')

function rssKb (pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1])
}

test('a logs subscriber that stops reading is skipped with a counted marker; the daemon keeps serving and stays bounded', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  const socketPath = path.join(h.home, 'daemon.sock')

  // A subscriber that asks for the live stream and then never reads.
  const slow = net.createConnection(socketPath)
  t.after(() => slow.destroy())
  await new Promise((resolve) => slow.once('connect', resolve))
  slow.write(JSON.stringify({ id: 1, method: 'logs', params: { target: 'all', lines: 0, follow: true } }) + '\n')
  slow.pause()

  const res = await h.run(['start', fixture('spew-lines.js'), '--name', 'flood'], { env: { SPEW_COUNT: '300000' } })
  assert.equal(res.code, 0, res.stderr)
  const file = path.join(h.home, 'logs', 'flood-out.log')
  const client = await connectOnce(socketPath)
  t.after(() => client.close())
  // while the flood goes on, other clients are answered
  const started = Date.now()
  while (!fs.readFileSync(file, 'utf8').endsWith(' 299999\n')) {
    assert.equal((await client.request('ping', {}, { timeout: 5000 })).pong, true)
    assert.ok(Date.now() - started < 30000, 'the flood should land within 30 s')
  }
  assert.ok(rssKb(h.daemonPid()) < 200 * 1024, `daemon RSS ${rssKb(h.daemonPid())} kB`)

  // once the subscriber reads again it learns how many lines it missed
  assert.equal((await h.run(['start', fixture('tick-lines.js'), '--name', 'later'])).code, 0)
  let received = ''
  slow.on('data', (d) => { received += d })
  slow.resume()
  const marker = await waitFor(() => {
    const line = received.split('\n').find((l) => l.includes('"event":"dropped"'))
    return line && JSON.parse(line)
  }, { timeout: 20000, message: 'a dropped marker' })
  assert.ok(marker.data.count > 0)
  await waitFor(() => /"line":"tick \d+"/.test(received), { message: 'live lines after the marker' })
})
