'use strict'

// The endpoints an orchestrator relies on (issue 23), on a real daemon with XPM_METRICS: they
// answer while hundreds of idle connections are held, and those are dropped within the
// documented time; /readyz does not say ready when a depends_on chain failed, and the failure is
// said where a user looks; a mistyped XPM_METRICS is refused before a daemon starts.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')

const HELD = 300 // idle connections held at once (bounded: the test opens exactly these)

test('the metrics port: overlapping scrapes are each complete; /livez, /readyz and /metrics answer while 300 idle connections are held, and the idle ones are dropped', async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const env = { XPM_METRICS: `127.0.0.1:${port}` }
  const res = await h.run(['start', fixture('idle.js'), '--name', 'worker'], { env })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(async () => (await httpGet(port, '/livez').catch(() => ({}))).status === 200, { message: 'the endpoint' })

  // overlapping scrapes, each complete (they used to share one snapshot: whole families empty)
  // (the second and third start 0 to 4 ms after the first: one render takes a few turns of the loop)
  for (let round = 0; round < 20; round++) {
    const scrapes = [httpGet(port, '/metrics')]
    for (let n = 0; n < 2; n++) {
      await new Promise((resolve) => setTimeout(resolve, round % 5)) // staggering the requests, not waiting for a condition
      scrapes.push(httpGet(port, '/metrics'))
    }
    for (const r of await Promise.all(scrapes)) {
      assert.equal(r.status, 200)
      for (const name of ['xpm_process_up', 'xpm_process_ready', 'xpm_process_restarts_total', 'xpm_process_start_time_seconds']) {
        assert.match(r.body, new RegExp(`^${name}\\{app="worker",id="0",instance="0"\\} `, 'm'), `round ${round}: ${name}`)
      }
    }
  }

  const held = []
  t.after(() => { for (const s of held) s.destroy() })
  let closed = 0
  await Promise.all(Array.from({ length: HELD }, () => new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', resolve)
    socket.on('error', resolve)
    socket.on('close', () => { closed++ })
    held.push(socket)
  })))
  // an orchestrator's probes, each on a new connection, while the idle ones are held
  for (const pathname of ['/livez', '/readyz', '/metrics', '/livez']) {
    const r = await httpGet(port, pathname, { timeout: 5000 })
    assert.equal(r.status, 200, `${pathname}: ${r.body}`)
  }
  // every idle connection is closed by the endpoint (4 s without a byte; docs/metrics.md),
  // long before Node's own 30 s sweep
  await waitFor(() => closed === HELD, { timeout: 20000, message: `idle connections closed by the endpoint (${closed} of ${HELD})` })
  assert.equal((await httpGet(port, '/livez')).status, 200)
})

test('depends_on: a failed job leaves its dependent unstarted; /readyz says 503 and why, `xpm why`, `xpm show` and daemon.log say it', async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const env = { XPM_METRICS: `127.0.0.1:${port}` }
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'migrate', script: ${JSON.stringify(fixture('exit-with-code.js'))}, autorestart: false, env: { EXIT_CODE: '4', EXIT_AFTER_MS: '100' } },
    { name: 'web', script: ${JSON.stringify(fixture('idle.js'))}, depends_on: ['migrate'] }
  ] }`)
  const res = await h.run(['start', 'ecosystem.config.js'], { env, cwd: dir })
  assert.notEqual(res.code, 0, res.stdout)
  assert.match(res.stderr, /web was not started: it depends on migrate, and the job exited with code 4/)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['migrate', 'stopped'], ['web', 'stopped']])

  const ready = await httpGet(port, '/readyz')
  assert.equal(ready.status, 503, ready.body)
  assert.match(ready.body, /migrate\[0\]: the job exited with code 4/)
  assert.match(ready.body, /web: not started: it depends on migrate, and the job exited with code 4/)

  const why = await h.run(['why', 'web'])
  assert.equal(why.code, 0, why.stderr)
  assert.match(why.stdout, /web\[0\][\s│]+not started: it depends on migrate, and the job exited with code 4/)
  const show = await h.run(['show', 'web'])
  assert.match(show.stdout, /last event\s.*not started: it depends on migrate/)
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8')
  assert.match(log, /"event":"dependency-failed".*web was not started: it depends on migrate/)

  // the user stops web: stopped on purpose now; the failed job still keeps /readyz at 503
  assert.equal((await h.run(['stop', 'web'])).code, 0)
  const after = await httpGet(port, '/readyz')
  assert.doesNotMatch(after.body, /web/)
  assert.match(after.body, /migrate\[0\]/)
})

test('depends_on: a crash-looping dependency fails the dependent\'s start with the reason (it used to exit 0 "still working")', async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'ecosystem.config.js'), `module.exports = { apps: [
    { name: 'db', script: ${JSON.stringify(fixture('crash-on-boot.js'))}, listen_timeout: 1500 },
    { name: 'web', script: ${JSON.stringify(fixture('idle.js'))}, depends_on: ['db'], listen_timeout: 1500 }
  ] }`)
  const res = await h.run(['start', 'ecosystem.config.js'], { cwd: dir })
  assert.notEqual(res.code, 0, res.stdout)
  assert.doesNotMatch(res.stderr, /still working/)
  assert.match(res.stderr, /web was not started: it depends on db, and it was not ready 2 s after its start \(db\[0\].*(waiting restart|launching)/)
  // the crash-looping app itself: still retried, and the command says so and how to stop it
  assert.match(res.stderr, /db\[0\] is being retried: xpm keeps restarting it \(with backoff\) until it stays up or turns errored; stop with `xpm stop db`/)
  const why = await h.run(['why', 'web'])
  assert.match(why.stdout, /not started: it depends on db/)
  await h.run(['delete', 'all'])
})

test('a mistyped XPM_METRICS is refused before a daemon starts (exit 2), and `xpm startup` will not write it into a unit', async (t) => {
  const h = createHome(t)
  const env = { XPM_METRICS: '9209x' }
  const res = await h.run(['start', fixture('idle.js'), '--name', 'worker'], { env })
  assert.equal(res.code, 2, res.stderr)
  assert.match(res.stderr, /XPM_METRICS="9209x": not a port/)
  assert.equal(h.daemonPid(), 0, 'no daemon was started')
  const unit = await h.run(['startup'], { env })
  assert.equal(unit.code, 2, unit.stdout)
  assert.match(unit.stderr, /XPM_METRICS="9209x"/)
  assert.doesNotMatch(unit.stdout, /XPM_METRICS/)
  // nor will `xpm update` stop the running daemon's apps for a daemon that would refuse it
  assert.equal((await h.run(['start', fixture('idle.js'), '--name', 'worker'])).code, 0)
  const pid = h.daemonPid()
  const update = await h.run(['update'], { env })
  assert.equal(update.code, 2, update.stdout)
  assert.equal(h.daemonPid(), pid)
  assert.deepEqual((await h.jlist()).map((p) => p.status), ['online'])
  // a good one goes into the unit
  const good = await h.run(['startup'], { env: { XPM_METRICS: '0.0.0.0:9300' } })
  assert.match(good.stdout, /^Environment=XPM_METRICS=0\.0\.0\.0:9300$/m)
})
