'use strict'

// `reload --hosts` rolling across 3 real sshd "hosts" (test/helpers/fleet.js), each serving HTTP
// from a 2-worker cluster app under load: no failed request anywhere, one host after the other;
// a reload that fails on host 2 stops the rollout before host 3.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { sshdMissing } = require('../helpers/sshd')
const { startFleet } = require('../helpers/fleet')
const { fixture, freePort } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')
const { waitFor } = require('../helpers/wait')

const skip = sshdMissing() || false

// Each host: app.js (echo-http) in its XPM_HOME, 2 cluster workers on a port of its own, loaded.
async function servingFleet (t) {
  const f = await startFleet(t, 3)
  for (const h of f.hosts) {
    h.app = path.join(h.home.home, 'app.js')
    fs.copyFileSync(fixture('echo-http.js'), h.app)
    h.appPort = await freePort()
    const r = await h.home.run(['start', h.app, '-i', '2', '--name', 'api', '--listen-timeout', '3s'], { env: { PORT: String(h.appPort) } })
    assert.equal(r.code, 0, r.stderr)
    h.load = startLoad(h.appPort, { concurrency: 3 })
    t.after(() => h.load.stop())
  }
  await waitFor(() => f.hosts.every((h) => h.load.stats.ok > 20), { timeout: 20000 })
  return f
}

const pidsOf = async (h) => (await h.home.jlist()).map((p) => p.pid).sort()

test('a rolling reload across 3 hosts under load: one host after the other, no failed request', { skip, timeout: 180000 }, async (t) => {
  const f = await servingFleet(t)
  const before = await Promise.all(f.hosts.map(pidsOf))
  const r = await f.xpm(['reload', 'api', '--hosts', 'production'])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  const order = [...r.stdout.matchAll(/^\[xpm\] reloading (h\d) \((\d) of 3\)$/gm)].map((m) => m[1])
  assert.deepEqual(order, ['h1', 'h2', 'h3'])
  // each host's own reload output, after its label, before the next host starts
  const at = (re) => r.stdout.search(re)
  assert.ok(at(/^h1 \| .*new pid \d+ ready/m) < at(/^\[xpm\] reloading h2/m))
  assert.ok(at(/^h2 \| .*new pid \d+ ready/m) < at(/^\[xpm\] reloading h3/m))
  assert.match(r.stdout, /^\[xpm\] h1: reloaded\n\[xpm\] h2: reloaded\n\[xpm\] h3: reloaded$/m)
  const after = await Promise.all(f.hosts.map(pidsOf))
  for (let i = 0; i < 3; i++) assert.equal(after[i].filter((p) => before[i].includes(p)).length, 0, `h${i + 1}: new workers`)
  // two hosts at once, then the third
  const r2 = await f.xpm(['reload', 'api', '--hosts', 'production', '--parallel', '2', '--json'])
  assert.equal(r2.code, 0, r2.stderr)
  assert.deepEqual(JSON.parse(r2.stdout).hosts.map((h) => [h.host, h.state]), [['h1', 'reloaded'], ['h2', 'reloaded'], ['h3', 'reloaded']])
  for (const h of f.hosts) {
    const stats = await h.load.stop()
    assert.ok(stats.ok > 50)
    assert.equal(stats.failed, 0, `${h.label}: ${JSON.stringify(stats.errors)}`)
  }
})

test('a reload that fails on host 2 stops the rollout: host 3 untouched, where each host stands, exit 1', { skip, timeout: 180000 }, async (t) => {
  const f = await servingFleet(t)
  fs.copyFileSync(fixture('crash-on-boot.js'), f.hosts[1].app)
  const before = await Promise.all(f.hosts.map(pidsOf))
  const r = await f.xpm(['reload', 'api', '--hosts', 'production'])
  assert.equal(r.code, 1, r.stdout)
  assert.match(r.stdout, /^\[xpm\] h1: reloaded\n\[xpm\] h2: failed \(.+\)\n\[xpm\] h3: not touched$/m)
  assert.match(r.stderr, /xpm: rollout stopped at h2: .*\[XPM_ERR_ROLLOUT_STOPPED\]/)
  assert.doesNotMatch(r.stdout, /reloading h3/)
  const after = await Promise.all(f.hosts.map(pidsOf))
  assert.deepEqual(after[2], before[2], 'h3 untouched')
  assert.equal(after[0].filter((p) => before[0].includes(p)).length, 0, 'h1 reloaded')
  for (const h of f.hosts) {
    const stats = await h.load.stop()
    assert.equal(stats.failed, 0, `${h.label}: the old workers keep serving (${JSON.stringify(stats.errors)})`)
  }
  // without --host/--hosts, --parallel is PM2's flag again: a notice (and the local daemon's answer)
  const local = await f.xpm(['reload', 'api', '--parallel', '2'])
  assert.match(local.stderr, /\[xpm\] notice: --parallel: xpm restarts and reloads the apps of a command in parallel/)
  assert.match(local.stderr, /XPM_ERR_APP_NOT_FOUND/)
})
