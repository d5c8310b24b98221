'use strict'

// Health probes and the watchdog with a real daemon, real cluster workers and real HTTP
// (docs/health.md). Each probe kind gates the start and every reload replacement (one that never
// passes is rolled back while the port keeps answering), and its liveness failures replace only
// the worker that fails, with the reason shown.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, freePort, fixture } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')
const { tempDir } = require('../helpers/tmp')

function tmpDir (t) {
  const dir = tempDir('xpm-health-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// The probe of each kind, against test/fixtures/health-app.js's health (per process).
function probes (kind, healthPort) {
  const target = {
    http: { http: '/healthz', timeout: '3s' },
    tcp: { tcp: healthPort, timeout: '3s' },
    exec: { exec: 'test -e "$HEALTH_DIR/ok-$XPM_PROBE_PID"', timeout: '3s' }
  }[kind]
  return {
    readiness: JSON.stringify({ ...target, interval: '200ms' }),
    liveness: JSON.stringify({ ...target, interval: '250ms', failure_threshold: 2 })
  }
}

const LIVENESS_REASON = {
  http: /^liveness: GET \/healthz → 503$/,
  tcp: /^liveness: tcp :\d+: nothing listens on port \d+ in this process$/,
  exec: /^liveness: exec "test -e .*": exit code 1$/
}

for (const kind of ['http', 'tcp', 'exec']) {
  test(`${kind} probes: readiness gates the start and each reload replacement; liveness replaces only the failing worker, the port always answering`, async (t) => {
    const h = createHome(t, { inProcess: true })
    const dir = tmpDir(t)
    const [port, healthPort] = [await freePort(), await freePort()]
    const env = { PORT: String(port), HEALTH_PORT: String(healthPort), HEALTH_DIR: dir }
    const { readiness, liveness } = probes(kind, healthPort)
    const start = await h.run(['start', fixture('health-app.js'), '--name', 'hk', '-i', '2', '--listen-timeout', '3s', '--readiness', readiness, '--liveness', liveness], { env })
    assert.equal(start.code, 0, start.stderr + start.stdout)
    const first = await h.jlist()
    assert.deepEqual(first.map((p) => [p.status, p.ready]), [['online', true], ['online', true]])
    // online means the probe passed: the process had made itself healthy by then
    for (const p of first) assert.ok(fs.existsSync(path.join(dir, `ok-${p.pid}`)), `pid ${p.pid} was healthy when it went online`)

    // Liveness: instance 1 fails its health; it alone is replaced, gracefully, under load.
    const load = startLoad(port, { concurrency: 4 })
    await waitFor(() => load.stats.ok > 20, { message: 'load running' })
    fs.writeFileSync(path.join(dir, `fail-${first[1].pid}`), '')
    const replaced = await waitFor(async () => {
      const list = await h.jlist()
      return list[1].restarts >= 1 && list[1].status === 'online' && list[1].pid !== first[1].pid && list
    }, { timeout: 15000, message: 'the failing worker to be replaced' })
    assert.match(replaced[1].lastRestartReason, LIVENESS_REASON[kind])
    assert.deepEqual([replaced[0].pid, replaced[0].restarts], [first[0].pid, 0], 'the healthy worker is left alone')
    const shown = await h.run(['show', '1'])
    assert.match(shown.stdout, /restarts\s+│ 1 \(last: liveness: /)
    assert.match(shown.stdout, /last event\s+│ .*liveness probe failed/)

    // Readiness during a reload: a replacement that never becomes healthy is rolled back.
    const reload = await h.run(['reload', 'hk', '--update-env'], { env: { ...env, NEVER_HEALTHY: '1' } })
    assert.equal(reload.code, 1, reload.stdout)
    assert.match(reload.stderr, /was not ready after 3000 ms \(readiness probe .+\); the old worker keeps serving \[XPM_ERR_RELOAD_FAILED\]/)
    const stats = await load.stop()
    assert.equal(stats.failed, 0, `failed requests: ${JSON.stringify(stats.errors)}`)
    assert.ok(stats.ok > 20)
    const after = await h.jlist()
    assert.deepEqual(after.map((p) => [p.pid, p.status]), replaced.map((p) => [p.pid, 'online']), 'the old workers keep serving')
    const why = await h.run(['why', 'hk'])
    assert.equal(why.code, 0, why.stderr)
    assert.match(why.stdout, /reload failed \(your command `xpm reload`\): the replacement was not ready after 3000 ms/)
    assert.match(why.stdout, /restarted: its liveness probe failed/)
  })
}

test('xpm list shows a running process that fails its readiness probe as not ready', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = tmpDir(t)
  const port = await freePort()
  const res = await h.run(['start', fixture('health-app.js'), '--name', 'nr', '--readiness', '{"http":"/healthz","interval":"200ms","failure_threshold":2}'], { env: { PORT: String(port), HEALTH_DIR: dir } })
  assert.equal(res.code, 0, res.stderr)
  const [p] = await h.jlist()
  fs.writeFileSync(path.join(dir, `fail-${p.pid}`), '')
  const list = await waitFor(async () => {
    const out = await h.run(['list'])
    return /│ not ready/.test(out.stdout) && out.stdout
  }, { message: '"not ready" in xpm list' })
  assert.match(list, new RegExp(`${p.pid} .*not ready`))
  const [row] = await h.jlist()
  assert.deepEqual([row.status, row.ready, row.notReadyReason, row.pid], ['online', false, 'GET /healthz → 503', p.pid])
  const shown = await h.run(['show', 'nr'])
  assert.match(shown.stdout, /ready\s+│ no \(GET \/healthz → 503\)/)
})

test('watchdog: a worker that blocks its loop for 5 s with max_event_loop_delay 1s is replaced, reason shown', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = tmpDir(t)
  const port = await freePort()
  const res = await h.run(['start', fixture('block-once.js'), '--name', 'wd', '-i', '1', '--max-event-loop-delay', '1s'], {
    env: { PORT: String(port), MARK_FILE: path.join(dir, 'blocked'), BLOCK_MS: '5000', BLOCK_AFTER_MS: '1500' }
  })
  assert.equal(res.code, 0, res.stderr)
  const [first] = await h.jlist()
  const [after] = await waitFor(async () => {
    const list = await h.jlist()
    return list[0].restarts >= 1 && list[0].status === 'online' && list
  }, { timeout: 20000, message: 'the blocked worker to be replaced' })
  assert.notEqual(after.pid, first.pid)
  assert.match(after.lastRestartReason, /^event loop blocked: p99 (≥ )?\d+\.\d s/)
  // the blocked worker exits once its loop is free again (or at kill_timeout): then its exit is there too
  const why = await waitFor(async () => {
    const out = (await h.run(['why', 'wd'])).stdout
    return /the old process was stopped by xpm/.test(out) && out
  }, { timeout: 15000, message: 'the blocked worker\'s exit in the journal' })
  assert.match(why, /restarted: its event loop was blocked: p99/)
  assert.match(why, new RegExp(`pid ${first.pid} +│ the old process was stopped by xpm: its event loop was blocked`)) // padded to the longest pid
  assert.match(why, /blocks its event loop for 5000 ms/, 'the blocked process\'s last lines')
})

test('https probes: an HTTPS app passes its https readiness probe, in cluster mode through the agent and without the agent over TLS (an http probe never could)', async (t) => {
  const h = createHome(t, { inProcess: true })
  const cluster = await h.run(['start', fixture('https-app.js'), '--name', 'tls-cluster', '-i', '2', '--readiness', 'https:/healthz', '--listen-timeout', '8000', '--json'])
  assert.equal(cluster.code, 0, cluster.stdout + cluster.stderr)
  const port = await freePort()
  // fork mode without the agent: a real TLS request to the probe's port
  const fork = await h.run(['start', fixture('https-app.js'), '--name', 'tls-fork', '--readiness', `https:${port}/healthz`, '--listen-timeout', '8000', '--json'], { env: { PORT: String(port), XPM_AGENT: '0' } })
  assert.equal(fork.code, 0, fork.stdout + fork.stderr)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]).sort(), [['tls-cluster', 'online'], ['tls-cluster', 'online'], ['tls-fork', 'online']])
})

test('a liveness failure queued behind `xpm reload` does not replace the reload\'s new, healthy worker, nor blame it', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = tmpDir(t)
  const port = await freePort()
  const env = { PORT: String(port), HEALTH_DIR: dir }
  // a replacement takes 2 s to pass its readiness gate: the old worker fails its liveness meanwhile
  const readiness = JSON.stringify({ http: '/healthz', initial_delay: '2s', interval: '200ms' })
  const liveness = JSON.stringify({ http: '/healthz', interval: '200ms', failure_threshold: 1 })
  const start = await h.run(['start', fixture('health-app.js'), '--name', 'lv', '-i', '1', '--listen-timeout', '8s', '--readiness', readiness, '--liveness', liveness], { env })
  assert.equal(start.code, 0, start.stderr + start.stdout)
  const [old] = await h.jlist()
  const reloading = h.run(['reload', 'lv'])
  // the replacement is forked (the reload runs); now the old worker fails its probe
  await waitFor(() => fs.readdirSync(dir).some((f) => f.startsWith('ok-') && f !== `ok-${old.pid}`), { message: 'the replacement to be up' })
  fs.writeFileSync(path.join(dir, `fail-${old.pid}`), '')
  const log = () => { try { return fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8') } catch { return '' } }
  await waitFor(() => /"event":"liveness"/.test(log()), { message: 'the old worker\'s liveness failure' })
  assert.equal((await reloading).code, 0)
  const [fresh] = await h.jlist()
  assert.notEqual(fresh.pid, old.pid)
  // either the restart is dropped (the old worker is gone) or, as before, it replaces the new one
  const outcome = await waitFor(async () => {
    if (/restart for liveness: .* dropped: lv\[0\] \(pid \d+\) already gone/.test(log())) return 'dropped'
    const [now] = await h.jlist()
    return now.pid !== fresh.pid && 'replaced the new worker'
  }, { timeout: 20000, message: 'the queued liveness restart to be dealt with' })
  assert.equal(outcome, 'dropped')
  const [after] = await h.jlist()
  assert.equal(after.pid, fresh.pid, 'the reload\'s worker still serves')
  const why = await h.run(['why', 'lv', '--json'])
  const entries = JSON.parse(why.stdout)
  assert.ok(!entries.some((e) => e.pid === fresh.pid && /liveness/.test(JSON.stringify(e))), `nothing blames pid ${fresh.pid}: ${why.stdout}`)
})

test('one app\'s slow exec probes do not keep another app from starting (the exec slots are per app)', async (t) => {
  const h = createHome(t, { inProcess: true })
  // four processes whose liveness command hangs for its whole 20 s timeout, again and again
  const slow = await h.run(['start', fixture('idle.js'), '--name', 'slow', '-i', '4', '--liveness', JSON.stringify({ exec: 'sleep 30', timeout: '20s', interval: '100ms' })])
  assert.equal(slow.code, 0, slow.stderr)
  const hanging = () => require('../helpers/procs').pidsWithEnv(['XPM_APP_NAME=slow', 'XPM_PROBE=liveness']).length
  await waitFor(() => hanging() >= 2, { message: 'the slow app\'s probe commands to be running' })
  // before: the 4 slots were shared by every app, and this start failed with "no result yet"
  const other = await h.run(['start', fixture('idle.js'), '--name', 'other', '--readiness', 'exec:true', '--listen-timeout', '5s'])
  assert.equal(other.code, 0, other.stdout + other.stderr)
  assert.equal((await h.jlist()).find((p) => p.name === 'other').status, 'online')
})
