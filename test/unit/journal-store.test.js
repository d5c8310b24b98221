'use strict'

// The restart journal on disk (daemon/journal/store.js) and what its causes mean (causes.js).
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createJournalStore } = require('../../daemon/journal/store')
const { classify, exitCause } = require('../../daemon/journal/causes')
const { tempDir } = require('../helpers/tmp')
const { waitFor } = require('../helpers/wait')

function tmpDir (t) {
  const dir = tempDir('xpm-journal-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('entries are appended in order, one JSON line each, 0600, and read back oldest first', async (t) => {
  const dir = tmpDir(t)
  const store = createJournalStore({ dir })
  await Promise.all(Array.from({ length: 5 }, (_, n) => store.append('api', { n })))
  assert.deepEqual((await store.read('api')).map((e) => e.n), [0, 1, 2, 3, 4])
  assert.deepEqual(await store.read('other'), [])
  assert.equal(fs.statSync(store.file('api')).mode & 0o777, 0o600)
  assert.equal(fs.readFileSync(store.file('api'), 'utf8').split('\n').filter(Boolean).length, 5)
})

test('bounded per app: past twice the bound the file keeps the newest entries', async (t) => {
  const dir = tmpDir(t)
  const store = createJournalStore({ dir, max: 10 })
  for (let n = 0; n < 45; n++) store.append('api', { n })
  await store.idle()
  const lines = fs.readFileSync(store.file('api'), 'utf8').split('\n').filter(Boolean)
  assert.ok(lines.length < 20, `${lines.length} lines on disk`)
  const entries = await store.read('api')
  assert.equal(entries.length, 10)
  assert.deepEqual(entries.map((e) => e.n), [35, 36, 37, 38, 39, 40, 41, 42, 43, 44])
  // a new store (a restarted daemon) counts what is there and keeps the bound
  const again = createJournalStore({ dir, max: 10 })
  for (let n = 45; n < 70; n++) again.append('api', { n })
  await again.idle()
  assert.ok(fs.readFileSync(again.file('api'), 'utf8').split('\n').filter(Boolean).length < 20)
  assert.equal((await again.read('api')).at(-1).n, 69)
})

test('a line torn by a crash is skipped; a link or another file type is refused, never followed', async (t) => {
  const dir = tmpDir(t)
  const store = createJournalStore({ dir })
  fs.writeFileSync(store.file('torn'), '{"n":1}\n{"n":2}\n{"n":')
  fs.chmodSync(store.file('torn'), 0o600)
  assert.deepEqual((await store.read('torn')).map((e) => e.n), [1, 2])

  const target = path.join(dir, 'elsewhere.txt')
  fs.writeFileSync(target, 'do not touch\n')
  fs.symlinkSync(target, store.file('linked'))
  const warnings = []
  const guarded = createJournalStore({ dir, logger: { warn: (o, m) => warnings.push(m) } })
  await guarded.append('linked', { n: 1 })
  assert.equal(fs.readFileSync(target, 'utf8'), 'do not touch\n')
  assert.match(warnings.join('\n'), /linked: an entry was not written: .*symbolic link/)
  assert.deepEqual(await guarded.read('linked'), [])
})

test('appends keep the file open: one open (and check) for a crash loop\'s entries, at most openMax files open, an idle one closed', async (t) => {
  const dir = tmpDir(t)
  const appendOpens = []
  const fsp = { ...fs.promises, open: (file, flags, ...rest) => { if (flags & fs.constants.O_APPEND) appendOpens.push(path.basename(file)); return fs.promises.open(file, flags, ...rest) } }
  const fds = () => fs.readdirSync('/proc/self/fd').length
  const before = fds()
  const store = createJournalStore({ dir, fsp, max: 10, openMax: 3, idleMs: 200 })
  for (let n = 0; n < 25; n++) await store.append('api', { n }) // past 20 lines the file is rewritten
  assert.deepEqual((await store.read('api')).map((e) => e.n), [15, 16, 17, 18, 19, 20, 21, 22, 23, 24])
  assert.equal(appendOpens.length, 2, 'opened once, and again after the rewrite')
  for (const app of ['a', 'b', 'c', 'd', 'e']) await store.append(app, { n: 1 })
  await store.idle()
  assert.ok(store.open() <= 3, `${store.open()} files open`)
  assert.ok(fds() - before <= 3, `${fds() - before} fds more than before`)
  for (const app of ['a', 'b', 'c', 'd', 'e']) assert.deepEqual(await store.read(app), [{ n: 1 }])
  await waitFor(() => store.open() === 0 && fds() === before, { timeout: 5000, message: 'idle files closed' })
  await store.append('api', { n: 25 })
  await store.remove('api')
  assert.equal(store.open(), 0)
  assert.equal(fs.existsSync(store.file('api')), false)
})

test('remove forgets an app\'s journal, after its queued entries', async (t) => {
  const dir = tmpDir(t)
  const store = createJournalStore({ dir })
  store.append('gone', { n: 1 })
  await store.remove('gone')
  assert.equal(fs.existsSync(store.file('gone')), false)
  assert.deepEqual(await store.read('gone'), [])
})

test('causes: the reasons the model and the policies use, in kinds', () => {
  assert.deepEqual(classify('manual'), { kind: 'command', detail: 'restart' })
  assert.deepEqual(classify('reload'), { kind: 'command', detail: 'reload' })
  assert.deepEqual(classify('delete'), { kind: 'command', detail: 'delete' })
  assert.deepEqual(classify('watch: src/app.js'), { kind: 'watch', detail: 'src/app.js' })
  assert.deepEqual(classify('memory (93.4M > 80M)'), { kind: 'memory', detail: 'memory (93.4M > 80M)' })
  assert.deepEqual(classify('cron'), { kind: 'cron', detail: null })
  assert.deepEqual(classify('liveness: GET /healthz → 503'), { kind: 'liveness', detail: 'GET /healthz → 503' })
  assert.deepEqual(classify('event loop blocked: p99 1.8 s (max_event_loop_delay 1s)'), { kind: 'watchdog', detail: 'p99 1.8 s (max_event_loop_delay 1s)' })
  assert.deepEqual(classify('heap (1612.0M > 1.5G)'), { kind: 'heap', detail: 'heap (1612.0M > 1.5G)' })
  assert.deepEqual(classify('crash (exit code 1)'), { kind: 'crash', detail: 'exit code 1' })
  assert.deepEqual(classify('rolled back (watch: a.js)'), { kind: 'rollback', detail: 'watch: a.js' })
  assert.deepEqual(classify('memory (90.0M > 80M); 17 memory restarts in a row, each less than min_uptime (1s) after its start (max_restarts 16)'), { kind: 'memory', detail: 'memory (90.0M > 80M)', gaveUp: '17 memory restarts in a row, each less than min_uptime (1s) after its start (max_restarts 16)' })
  assert.deepEqual(classify(null), { kind: 'xpm', detail: null })
  assert.deepEqual(classify('something new'), { kind: 'other', detail: 'something new' })
})

test('exit causes: stopped by xpm and why, a signal from `xpm sendSignal` or from outside, or the process itself', () => {
  assert.deepEqual(exitCause({ stopCause: 'stop', signal: 'SIGINT' }), { by: 'xpm', kind: 'command', detail: 'stop' })
  assert.deepEqual(exitCause({ notReady: 'was not ready after 8000 ms', code: null, signal: 'SIGINT' }), { by: 'xpm', kind: 'not-ready', detail: 'was not ready after 8000 ms' })
  assert.deepEqual(exitCause({ signal: 'SIGTERM', signalSent: 'SIGTERM' }), { by: 'command', kind: 'command', detail: 'sendSignal SIGTERM' })
  assert.deepEqual(exitCause({ signal: 'SIGKILL', signalSent: 'SIGUSR2' }), { by: 'outside', kind: 'killed', detail: 'SIGKILL' })
  assert.deepEqual(exitCause({ code: 1, signal: null, next: 'restart' }), { by: 'itself', kind: 'crash', detail: 'exit code 1' })
  assert.deepEqual(exitCause({ code: 0, signal: null, next: 'stopped' }), { by: 'itself', kind: 'finished', detail: 'exit code 0' })
})
