'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture, delay } = require('../helpers/xpm')
const { tempDir } = require('../helpers/tmp')

// Lines of the daemon's pino log (written asynchronously: poll it).
function daemonEvents (home) {
  let text = ''
  try { text = fs.readFileSync(path.join(home, 'daemon.log'), 'utf8') } catch {}
  return text.split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) } catch { return {} } })
}

function tmpDir (t) {
  const dir = tempDir('xpm-watch-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('watch: a change restarts once (debounced) with its path as the reason; ignored paths and a stopped app do not', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = tmpDir(t)
  fs.copyFileSync(fixture('echo-http.js'), path.join(dir, 'app.js'))
  fs.mkdirSync(path.join(dir, 'scratch'))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  const res = await h.run(['start', 'app.js', '--name', 'w', '-i', '1', '--watch-delay', '300ms', '--ignore-watch', 'scratch', '--watch'], { cwd: dir, env: { PORT: '0' } })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(() => daemonEvents(h.home).some((e) => e.event === 'watch' && e.app === 'w' && e.dirs >= 1), { message: 'the watcher to be ready' })
  const [first] = await h.jlist()
  assert.equal(first.mode, 'cluster')

  fs.writeFileSync(path.join(dir, 'scratch', 'notes.txt'), 'x')
  fs.writeFileSync(path.join(dir, 'node_modules', 'dep.js'), 'x')
  fs.writeFileSync(path.join(dir, 'debug.log'), 'x')
  await delay(900) // three watch delays: any restart would have begun
  assert.equal((await h.jlist())[0].restarts, 0)

  for (let i = 0; i < 3; i++) {
    fs.appendFileSync(path.join(dir, 'app.js'), `\n// edit ${i}\n`)
    await delay(50) // spacing the edits inside one watch delay, not waiting for a condition
  }
  const after = await waitFor(async () => { const [p] = await h.jlist(); return p.restarts >= 1 && p.status === 'online' && p }, { message: 'a watch restart' })
  assert.notEqual(after.pid, first.pid)
  assert.equal(after.lastRestartReason, 'watch: app.js')
  await delay(900) // observing that no second restart comes within three watch delays
  assert.equal((await h.jlist())[0].restarts, 1, 'three quick edits restart once')
  const restartEvents = daemonEvents(h.home).filter((e) => e.event === 'restart' && e.app === 'w')
  assert.deepEqual(restartEvents.map((e) => e.reason), ['watch: app.js'])
  const show = await h.run(['show', 'w'])
  assert.match(show.stdout, /restarts\s+│ 1 \(last: watch: app\.js\)/)

  assert.equal((await h.run(['stop', 'w'])).code, 0)
  fs.appendFileSync(path.join(dir, 'app.js'), '\n// edit while stopped\n')
  await delay(900) // observing that a stopped app is not restarted by the watch
  const [stopped] = await h.jlist()
  assert.equal(stopped.status, 'stopped')
  assert.equal(stopped.restarts, 1)
})

test('watch: a crash waits for the next change instead of looping', async (t) => {
  const h = createHome(t, { inProcess: true })
  const dir = tmpDir(t)
  fs.writeFileSync(path.join(dir, 'app.js'), 'setTimeout(() => { throw new Error("boom") }, 1500)\n')
  const res = await h.run(['start', 'app.js', '--name', 'c', '--watch-delay', '200ms', '--watch'], { cwd: dir })
  assert.equal(res.code, 0, res.stderr)
  const errored = await waitFor(async () => { const [p] = await h.jlist(); return p.status === 'errored' && p }, { message: 'errored' })
  assert.equal(errored.restarts, 0)
  await waitFor(() => daemonEvents(h.home).some((e) => e.event === 'watch' && e.app === 'c' && e.dirs >= 1), { message: 'the watcher to be ready' })
  fs.writeFileSync(path.join(dir, 'app.js'), 'setInterval(() => {}, 1000)\n')
  const fixed = await waitFor(async () => { const [p] = await h.jlist(); return p.status === 'online' && p }, { message: 'restarted by the change' })
  assert.equal(fixed.restarts, 1)
  assert.equal(fixed.lastRestartReason, 'watch: app.js')
})

test('max_memory_restart: a worker over its limit is replaced within two samples, reason memory', async (t) => {
  const h = createHome(t, { inProcess: true })
  const mark = path.join(h.home, 'over.txt')
  const limit = 80 * 1024 * 1024
  const res = await h.run(['start', fixture('alloc-memory.js'), '--name', 'mem', '-i', '1', '--max-memory-restart', '80M'], {
    env: { PORT: '0', ALLOC_MB_PER_S: '20', OVER_BYTES: String(limit), MARK_FILE: mark }
  })
  assert.equal(res.code, 0, res.stderr)
  const [first] = await h.jlist()
  const replaced = await waitFor(async () => { const [p] = await h.jlist(); return p.restarts >= 1 && p }, { timeout: 20000, message: 'a memory restart' })
  assert.notEqual(replaced.pid, first.pid)
  assert.match(replaced.lastRestartReason, /^memory \(\d+\.\dM > 80M\)$/)
  const crossed = fs.readFileSync(mark, 'utf8').split('\n').map((l) => l.split(' ')).find(([pid]) => Number(pid) === first.pid)
  assert.ok(crossed, 'the first worker recorded when it went over')
  const event = await waitFor(() => daemonEvents(h.home).find((e) => e.event === 'restart' && e.app === 'mem'), { message: 'the restart event' })
  assert.match(event.reason, /^memory/)
  const lag = Date.parse(event.time) - Number(crossed[1])
  t.diagnostic(`replaced ${lag} ms after going over the limit`)
  assert.ok(lag <= 2000, `replaced ${lag} ms after going over the limit (two samples: 2000 ms)`)
})

test('scale up and down keeps the other workers; as PM2, a scale-down keeps the newest and a scale-up reuses the lowest free indexes', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('echo-http.js'), '--name', 'sc', '-i', '2'], { env: { PORT: '0' } })).code, 0)
  const before = await h.jlist()
  const pids = before.map((p) => p.pid)

  const up = await h.run(['scale', 'sc', '+2'])
  assert.equal(up.code, 0, up.stderr)
  let list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.instance, p.status]), [[0, 'online'], [1, 'online'], [2, 'online'], [3, 'online']])
  assert.deepEqual(list.slice(0, 2).map((p) => p.pid), pids)

  const newest = list[3].pid
  const down = await h.run(['scale', 'sc', '-3'])
  assert.equal(down.code, 0, down.stderr)
  list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.instance, p.pid]), [[3, newest]])

  assert.equal((await h.run(['scale', 'sc', '3'])).code, 0)
  list = await h.jlist()
  assert.deepEqual(list.map((p) => p.instance).sort(), [0, 1, 3])
  assert.equal(list.find((p) => p.instance === 3).pid, newest)
  const [shown] = JSON.parse((await h.run(['show', 'sc', '--json'])).stdout)
  assert.equal(shown.spec.instances, 3)

  for (const args of [['scale', 'sc', '0'], ['scale', 'sc', 'lots'], ['scale', 'sc', '-5']]) {
    const bad = await h.run(args)
    assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`)
  }
  assert.equal((await h.run(['scale', 'ghost', '2'])).code, 1)
  assert.equal((await h.jlist()).length, 3)
})

test('cron_restart with a seconds field restarts the app with reason cron; reset zeroes the counters', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('signal-echo.js'), '--name', 'cr', '--cron-restart', '*/2 * * * * *'])
  assert.equal(res.code, 0, res.stderr)
  const p = await waitFor(async () => { const [x] = await h.jlist(); return x.restarts >= 1 && x }, { timeout: 8000, message: 'a cron restart' })
  assert.equal(p.lastRestartReason, 'cron')
  assert.ok(daemonEvents(h.home).some((e) => e.event === 'restart' && e.app === 'cr' && e.reason === 'cron'))

  assert.equal((await h.run(['stop', 'cr'])).code, 0)
  const reset = await h.run(['reset', 'cr'])
  assert.equal(reset.code, 0, reset.stderr)
  const [after] = await h.jlist()
  assert.equal(after.restarts, 0)
  assert.equal(after.lastRestartReason, null)
  await delay(2500) // a cron tick would have come: a stopped app is not restarted by cron
  assert.equal((await h.jlist())[0].status, 'stopped')
})

test('an exit code listed in stop_exit_codes stays stopped', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('exit-with-code.js'), '--name', 'done', '--stop-exit-codes', '3,4'], { env: { EXIT_CODE: '3', EXIT_AFTER_MS: '1200' } })
  assert.equal(res.code, 0, res.stderr)
  const p = await waitFor(async () => { const [x] = await h.jlist(); return x.status === 'stopped' && x }, { message: 'stopped' })
  assert.equal(p.lastExit.code, 3)
  assert.match(p.lastExit.reason, /stop_exit_codes/)
  await delay(500) // the backoff would restart within 100 ms
  const [still] = await h.jlist()
  assert.equal(still.status, 'stopped')
  assert.equal(still.restarts, 0)
})

test('sendSignal reaches the app; a bad signal name is refused before anything is sent', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('signal-echo.js'), '--name', 'sig'])).code, 0)
  await waitFor(async () => (await h.run(['logs', 'sig', '--nostream', '--raw'])).stdout.includes('signal-echo ready'), { message: 'ready line' })
  const sent = await h.run(['sendSignal', 'usr2', 'sig'])
  assert.equal(sent.code, 0, sent.stderr)
  assert.match(sent.stdout, /sent SIGUSR2 to sig\[0\]/)
  await waitFor(async () => (await h.run(['logs', 'sig', '--nostream', '--raw'])).stdout.includes('got SIGUSR2'), { message: 'the app got SIGUSR2' })
  const bad = await h.run(['sendSignal', 'SIGNOPE', 'sig'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /signal name/)
  assert.equal((await h.jlist())[0].restarts, 0)
})

test('watch as PM2: a stop turns it off, also for the next start; a bare `restart --watch` turns it on, then off', async (t) => {
  const h = createHome(t)
  const dir = tmpDir(t)
  fs.copyFileSync(fixture('idle.js'), path.join(dir, 'app.js'))
  const watching = async () => {
    const res = await h.run(['jlist', '--pm2'])
    assert.equal(res.code, 0, res.stderr)
    return JSON.parse(res.stdout).map((p) => p.pm2_env.watch)
  }
  const ok = async (args) => { const res = await h.run(args, { cwd: dir }); assert.equal(res.code, 0, res.stdout + res.stderr) }
  await ok(['start', 'app.js', '--watch'])
  assert.deepEqual(await watching(), [true])
  await ok(['stop', 'app'])
  assert.deepEqual(await watching(), [false])
  await ok(['start', 'app'])
  assert.deepEqual(await watching(), [false], 'a stop turned the watch off for good')
  await ok(['restart', 'app', '--watch'])
  assert.deepEqual(await watching(), [true])
  await ok(['restart', 'app', '--watch'])
  assert.deepEqual(await watching(), [false], 'a second bare --watch turns it off')
  await ok(['restart', 'app', '--watch', dir])
  assert.deepEqual(await watching(), [true], '--watch with paths sets them')
})
