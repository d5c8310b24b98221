'use strict'

// The fleet transport for real: real sshd "hosts" on loopback (test/helpers/fleet.js), each with
// its own XPM_HOME, `xpm bridge` run over ssh, a real daemon at the other end.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { sshdMissing } = require('../helpers/sshd')
const { startFleet, REMOTE_BIN } = require('../helpers/fleet')
const { freePort, waitFor } = require('../helpers/wait')
const { openFleet, resolveHosts } = require('../../lib/cli/fleet')

const skip = sshdMissing() || false
const OTHER_VERSION = path.join(__dirname, '..', 'fixtures', 'fleet', 'other-version-xpm')
const opened = []
after(() => { for (const f of opened) f.close() })
const open = async (hosts, env) => {
  const fleet = await openFleet(hosts, { env, connectTimeout: 30000 })
  opened.push(fleet)
  return fleet
}

test('a deploy section\'s hosts: one connection each, many requests at once on it, the daemon\'s own refusals', { skip, timeout: 120000 }, async (t) => {
  const f = await startFleet(t, 2)
  const hosts = await resolveHosts({ hosts: 'production' }, { cwd: f.dir, home: f.local.home })
  assert.deepEqual(hosts.map((h) => h.label), ['h1', 'h2'])
  const fleet = await open(hosts, f.env)
  for (const e of fleet.hosts) {
    assert.equal(e.error, null)
    assert.equal(e.client.hello.protocol, 1)
    assert.equal(e.client.hello.pid, f.hosts[fleet.hosts.indexOf(e)].home.daemonPid(), 'each host reaches the daemon of its own XPM_HOME')
  }
  // 40 requests in flight on each connection, answered by id
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => fleet.request(i % 2 ? 'h2' : 'h1', 'ping')))
  assert.equal(replies.length, 40)
  assert.ok(replies.every((r) => r.pong))
  await assert.rejects(fleet.request('h1', 'no-such-method'), { code: 'XPM_ERR_UNKNOWN_METHOD' })
  const all = await fleet.all('list')
  assert.deepEqual(all.map((r) => [r.label, r.result]), [['h1', []], ['h2', []]])
  // closing ends ssh, and with it the bridge on each host
  assert.equal(bridges(f.hosts[0].home.home).length, 1)
  fleet.close()
  await waitFor(() => f.hosts.every((h) => bridges(h.home.home).length === 0), { timeout: 10000, message: 'no bridge left on the hosts' })
})

// The `xpm bridge` processes running with this XPM_HOME (Linux /proc).
function bridges (home) {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes('bridge') &&
        fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`XPM_HOME=${home}\0`)
    } catch { return false }
  })
}

test('a remote xpm of another version is refused with both versions named', { skip, timeout: 60000 }, async (t) => {
  const f = await startFleet(t, 1)
  const hosts = await resolveHosts({ host: [f.hosts[0].spec] }, { cwd: f.dir, home: f.local.home })
  const fleet = await open(hosts, { ...f.env, XPM_REMOTE_BIN: OTHER_VERSION })
  const { error } = fleet.hosts[0]
  assert.equal(error.code, 'XPM_ERR_PROTOCOL_VERSION')
  assert.match(error.message, /127\.0\.0\.1:\d+ runs xpm 9\.0\.0 \(protocol 2\); this xpm is \d+\.\d+\.\d+ \(protocol 1\)/)
})

test('a host without xpm says how to install it; an unreachable host says so; the others answer', { skip, timeout: 60000 }, async (t) => {
  const f = await startFleet(t, 2)
  const deadPort = await freePort()
  // h1: the deploy section's PATH (xpm found); h2: the session's PATH and login shell have no xpm
  f.ecosystem({ host: [{ host: '127.0.0.1', port: String(f.hosts[0].port), name: 'h1' }, { host: '127.0.0.1', port: String(f.hosts[1].port), name: 'h2', env: { PATH: '/usr/bin:/bin' } }, { host: '127.0.0.1', port: String(deadPort), name: 'h3' }] })
  const hosts = await resolveHosts({ hosts: 'production' }, { cwd: f.dir, home: f.local.home })
  const fleet = await open(hosts, f.env)
  const [h1, h2, h3] = fleet.hosts
  assert.equal(h1.error, null)
  assert.equal(h2.error.code, 'XPM_ERR_REMOTE_XPM_MISSING')
  assert.match(h2.error.message, /^h2: xpm is not installed there .*install it on 127\.0\.0\.1 \(npm install -g xpm@/)
  assert.equal(h3.error.code, 'XPM_ERR_HOST_UNREACHABLE')
  assert.match(h3.error.message, /^h3: host unreachable: ssh could not connect to 127\.0\.0\.1 port \d+/)
  assert.ok((await fleet.request('h1', 'ping')).pong)
  await assert.rejects(fleet.request('h3', 'ping'), { code: 'XPM_ERR_HOST_UNREACHABLE' })
  // with XPM_REMOTE_BIN, as with --host
  const byBin = await open(await resolveHosts({ host: [f.hosts[1].spec] }, { cwd: f.dir, home: f.local.home }), { ...f.env, XPM_REMOTE_BIN: REMOTE_BIN })
  assert.equal(byBin.hosts[0].error, null)
  assert.equal(byBin.hosts[0].client.hello.pid, f.hosts[1].home.daemonPid())
})
