'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, freePort, httpGet, fixture, BIN } = require('../helpers/xpm')
const { startLoad } = require('../helpers/load')

// Copies a fixture into the test's XPM_HOME so the test can edit the code on disk.
function appCopy (h, name, as = name) {
  const file = path.join(h.home, as)
  fs.copyFileSync(fixture(name), file)
  return file
}

async function reloadUnderLoad (t, instances) {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const script = appCopy(h, 'echo-http.js')
  const start = await h.run(['start', script, '-i', String(instances), '--name', 'api'], { env: { PORT: String(port) } })
  assert.equal(start.code, 0, start.stderr)
  const fresh = startLoad(port, { concurrency: 4, keepAlive: false })
  const kept = startLoad(port, { concurrency: 4, keepAlive: true })
  await waitFor(() => fresh.stats.ok > 20 && kept.stats.ok > 20)
  const before = (await h.jlist()).map((p) => p.pid)
  for (let i = 0; i < 2; i++) {
    const res = await h.run(['reload', 'api'])
    assert.equal(res.code, 0, res.stderr + res.stdout)
    assert.match(res.stdout, /new pid \d+ ready/)
    assert.match(res.stdout, /old pid \d+ stopped/)
  }
  await waitFor(() => fresh.stats.ok > 100)
  const [a, b] = [await fresh.stop(), await kept.stop()]
  const after = await h.jlist()
  assert.equal(after.length, instances)
  assert.ok(after.every((p) => p.status === 'online' && !before.includes(p.pid)))
  return { fresh: a, kept: b }
}

test('reload twice under load with -i 2: zero failed requests, new connections and keep-alive', async (t) => {
  const { fresh, kept } = await reloadUnderLoad(t, 2)
  assert.equal(fresh.failed, 0, `new connections: ${JSON.stringify(fresh.errors)}`)
  assert.equal(kept.failed, 0, `keep-alive: ${JSON.stringify(kept.errors)}`)
})

test('reload twice under load with -i 1: the port never closes, zero failed requests', async (t) => {
  const { fresh, kept } = await reloadUnderLoad(t, 1)
  assert.equal(fresh.failed, 0, `new connections: ${JSON.stringify(fresh.errors)}`)
  assert.equal(kept.failed, 0, `keep-alive: ${JSON.stringify(kept.errors)}`)
})

test('an app that listens 1.5 s after boot reloads with zero failed requests', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('slow-listen.js'), '-i', '1', '--name', 'slow'], { env: { PORT: String(port) } })).code, 0)
  await waitFor(async () => (await httpGet(port)).status === 200)
  const load = startLoad(port, { concurrency: 4 })
  const res = await h.run(['reload', 'slow'])
  assert.equal(res.code, 0, res.stderr)
  await waitFor(() => load.stats.ok > 20)
  const stats = await load.stop()
  assert.equal(stats.failed, 0, JSON.stringify(stats.errors))
})

test('wait_ready: the old worker is stopped only after the new one sent ready', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('wait-ready.js'), '-i', '1', '--name', 'wr', '--wait-ready'], { env: { PORT: String(port), READY_DELAY_MS: '800' } })).code, 0)
  const res = await h.run(['reload', 'wr', '--json'])
  assert.equal(res.code, 0, res.stderr)
  const steps = res.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
  const fork = steps.find((s) => s.type === 'fork')
  const ready = steps.findIndex((s) => s.type === 'ready')
  const stopped = steps.findIndex((s) => s.type === 'stopped')
  assert.ok(ready > -1 && stopped > ready)
  // the new worker answers and says when it sent ready; the old one was stopped after that
  const { json } = await waitFor(async () => { const r = await httpGet(port); return r.json.pid === fork.newPid && r })
  assert.ok(json.readyAt > 0)
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  const stopLine = log.find((e) => e.event === 'reload' && e.type === 'stopped')
  assert.ok(Date.parse(stopLine.time) >= json.readyAt, 'old worker stopped after ready')
})

for (const [label, broken] of [['crashes on boot', 'crash-on-boot.js'], ['never becomes ready', 'never-ready.js']]) {
  test(`new code that ${label}: old workers keep serving, reload exits non-zero, app stays online`, async (t) => {
    const h = createHome(t, { inProcess: true })
    const port = await freePort()
    const script = appCopy(h, 'echo-http.js', 'app.js')
    assert.equal((await h.run(['start', script, '-i', '2', '--name', 'api', '--listen-timeout', '2s'], { env: { PORT: String(port) } })).code, 0)
    const before = (await h.jlist()).map((p) => p.pid)
    fs.copyFileSync(fixture(broken), script)
    const load = startLoad(port, { concurrency: 4 })
    const res = await h.run(['reload', 'api'])
    assert.notEqual(res.code, 0)
    assert.match(res.stderr, /api\[0\]/)
    assert.match(res.stderr, /old worker keeps serving/)
    assert.match(res.stderr, label.includes('crash') ? /exited with code 3/ : /not ready after 2000 ms/)
    await waitFor(() => load.stats.ok > 50)
    const stats = await load.stop()
    assert.equal(stats.failed, 0, JSON.stringify(stats.errors))
    const after = await h.jlist()
    assert.deepEqual(after.map((p) => p.pid), before)
    assert.ok(after.every((p) => p.status === 'online'))
  })
}

test('after a reload, responses come from the new code on disk', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  const script = appCopy(h, 'echo-http.js', 'app.js')
  assert.equal((await h.run(['start', script, '-i', '2', '--name', 'api'], { env: { PORT: String(port) } })).code, 0)
  assert.equal((await httpGet(port)).json.version, 'v1')
  fs.writeFileSync(script, fs.readFileSync(script, 'utf8').replace("process.env.APP_VERSION || 'v1'", "'v2'"))
  assert.equal((await h.run(['reload', 'api'])).code, 0)
  for (let i = 0; i < 10; i++) assert.equal((await httpGet(port)).json.version, 'v2')
})

test('--update-env gives the new workers the current environment; removed variables disappear', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('echo-http.js'), '-i', '1', '--name', 'api'], { env: { PORT: String(port), OLD_ONLY: 'x', SHARED: 'one' } })).code, 0)
  assert.equal((await httpGet(port)).json.env.OLD_ONLY, 'x')
  const res = await h.run(['reload', 'api', '--update-env'], { env: { PORT: String(port), SHARED: 'two' } })
  assert.equal(res.code, 0, res.stderr)
  const { json } = await httpGet(port)
  assert.equal(json.env.SHARED, 'two')
  assert.equal(json.env.OLD_ONLY, undefined)
})

test('fork-mode apps: reload falls back to restart and says so', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('echo-http.js'), '--name', 'forky'], { env: { PORT: String(port) } })).code, 0)
  const before = (await h.jlist())[0].pid
  const res = await h.run(['reload', 'forky'])
  assert.equal(res.code, 0, res.stderr)
  assert.match(res.stdout, /fork mode: reload falls back to restart/)
  assert.notEqual((await h.jlist())[0].pid, before)
})

test('the CLI killed in the middle of a reload: the reload still completes; two reloads never interleave', async (t) => {
  const h = createHome(t, { inProcess: true })
  const port = await freePort()
  assert.equal((await h.run(['start', fixture('slow-listen.js'), '-i', '2', '--name', 'slow'], { env: { PORT: String(port), LISTEN_DELAY_MS: '800' } })).code, 0)
  const before = (await h.jlist()).map((p) => p.pid)
  const cli = spawn(process.execPath, [BIN, 'reload', 'slow'], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  cli.stdout.on('data', (d) => { out += d })
  await waitFor(() => /new worker pid/.test(out), { message: 'the reload to begin' })
  cli.kill('SIGKILL')
  // a second reload submitted meanwhile waits its turn
  const second = await h.run(['reload', 'slow', '--json'])
  assert.equal(second.code, 0, second.stderr)
  const after = await h.jlist()
  assert.ok(after.every((p) => p.status === 'online' && !before.includes(p.pid)))
  const log = fs.readFileSync(path.join(h.home, 'daemon.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  const marks = log.filter((e) => e.event === 'reload' && (e.type === 'begin' || e.type === 'end')).map((e) => e.type)
  assert.deepEqual(marks, ['begin', 'end', 'begin', 'end'])
  assert.equal(log.filter((e) => e.event === 'reload' && e.type === 'end').every((e) => e.ok), true)
})

test('shutdown_with_message is honoured during reload, and the app\'s own message handler sees nothing but it', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('message-log.js'), '-i', '1', '--name', 'msg', '--shutdown-with-message', '--kill-timeout', '8s'])
  assert.equal(res.code, 0, res.stderr)
  const [before] = await h.jlist()
  const started = Date.now()
  const reload = await h.run(['reload', 'msg'])
  assert.equal(reload.code, 0, reload.stderr)
  assert.ok(Date.now() - started < 7000, 'the old worker left on the message, not at kill_timeout')
  const out = path.join(h.home, 'logs', 'msg-out-0.log') // cluster mode: a file per instance, as PM2
  const lines = await waitFor(() => { const l = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean); return l.length && l })
  assert.deepEqual(lines, ['message "shutdown"'])
  const [after] = await h.jlist()
  assert.notEqual(after.pid, before.pid)
  assert.equal(after.status, 'online')
})
