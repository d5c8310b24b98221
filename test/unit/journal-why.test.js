'use strict'

// The journal (daemon/journal/index.js) records what the supervisor's events say, and
// `xpm why` (lib/cli/render-why.js) says it in words.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { EventBus } = require('../../daemon/event-bus')
const { createJournal } = require('../../daemon/journal')
const { renderWhy, lastEventLine, duration } = require('../../lib/cli/render-why')
const { tempDir } = require('../helpers/tmp')

function world (t) {
  const dir = tempDir('xpm-journal-why-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const supervisor = new EventBus()
  const app = { name: 'api', deleting: false, instances: [] }
  const inst = { id: 0, index: 0, name: 'api', pid: 200, restarts: 1, app }
  app.instances.push(inst)
  supervisor.apps = new Map([['api', app]])
  const lines = [
    { pid: 100, stream: 'out', line: 'starting' },
    { pid: 999, stream: 'out', line: 'another process of the slot' },
    ...Array.from({ length: 25 }, (_, n) => ({ pid: 100, stream: n % 2 ? 'err' : 'out', line: `line ${n}` })),
    { pid: 100, stream: 'err', line: 'Error: boom ' + 'x'.repeat(400) }
  ]
  const logSink = { recent: ({ name, instance, id }, n) => { assert.deepEqual([name, instance, id], ['api', 0, 0]); return lines.slice(-n) } }
  let t0 = 1_700_000_000_000
  const journal = createJournal({ supervisor, logSink, dir, clock: () => (t0 += 1000) })
  t.after(() => journal.close())
  return { supervisor, journal, app, inst, dir }
}

test('an exit, its restart and a failed reload are recorded with their causes and the last lines', async (t) => {
  const { supervisor, journal, inst } = world(t)
  supervisor.emit('exit', { id: 0, name: 'api', instance: 0, pid: 100, code: 1, signal: null, ranMs: 2100, stopCause: null, signalSent: null, notReady: null, handle: null, role: 'current', next: 'restart', delay: 100, reason: 'crash (exit code 1)' })
  supervisor.emit('restart', { id: 0, name: 'api', instance: 0, reason: 'crash (exit code 1)' })
  supervisor.emit('replace-failed', { id: 0, name: 'api', instance: 0, pid: 300, oldPid: 200, cause: 'reload', reason: 'replacement api[0] (pid 300) was not ready after 2000 ms (readiness probe GET /healthz → 503)' })
  supervisor.emit('exit', { id: 0, name: 'api', instance: 0, pid: 300, code: null, signal: 'SIGINT', ranMs: 2000, stopCause: 'rolled back (reload)', role: 'spare', next: null })
  await journal.idle()
  const entries = await journal.entries({ app: 'api' })
  assert.deepEqual(entries.map((e) => [e.event, e.pid, e.cause.kind]), [
    ['exit', 300, 'rollback'],
    ['reload-failed', 300, 'command'],
    ['restart', 200, 'crash'],
    ['exit', 100, 'crash']
  ])
  const crash = entries[3]
  assert.equal(crash.lines.length, 20, 'the last 20 lines of that process only')
  assert.ok(crash.lines.every((l) => !l.line.includes('another process')))
  assert.equal(crash.lines.at(-1).stream, 'err')
  assert.equal(crash.lines.at(-1).line.length, 300, 'long lines are cut')
  assert.equal(entries[1].reason, 'was not ready after 2000 ms (readiness probe GET /healthz → 503)')
  const last = await journal.lastFor([inst])
  assert.equal(last.get(0).pid, 300)

  const text = renderWhy(entries, { now: entries[0].at })
  assert.match(text, /api\[0\] pid 300 │ the replacement was stopped by xpm: a replacement that never became ready was rolled back \(reload\) after running 2\.0 s \(it ended with signal SIGINT, sent by xpm\)/)
  assert.match(text, /reload failed \(your command `xpm reload`\): the replacement was not ready after 2000 ms \(readiness probe GET \/healthz → 503\); the old process \(pid 200\) keeps serving/)
  assert.match(text, /api\[0\] pid 200 │ restarted: it crashed \(exit code 1\)/)
  assert.match(text, /api\[0\] pid 100 │ crashed: exit code 1 after running 2\.1 s; restarting in 100 ms +│\n│ +│ +│ {3}last lines: +│\n│ +│ +│ {5}out \| line 6 +│\n/)
  assert.match(text, / {5}err \| Error: boom x+… +│\n└─+┴/)
})

test('a new daemon reads the journal from disk; a deleted app\'s journal goes', async (t) => {
  const { supervisor, journal, dir, app, inst } = world(t)
  supervisor.emit('exit', { id: 0, name: 'api', instance: 0, pid: 100, code: null, signal: 'SIGKILL', ranMs: 65000, role: 'current', next: 'restart', delay: 0 })
  await journal.idle()
  const later = createJournal({ supervisor: new EventBus(), dir })
  const [entry] = await later.entries({ app: 'api' })
  assert.deepEqual(entry.cause, { by: 'outside', kind: 'killed', detail: 'SIGKILL' })
  assert.match(renderWhy([entry], { now: entry.at }), /killed by signal SIGKILL, not sent by xpm .* after running 1m 5s; restarting at once/)
  assert.equal((await later.lastFor([inst])).get(0).pid, 100)
  later.close()

  app.deleting = true
  app.instances = []
  supervisor.emit('removed', inst)
  await new Promise((resolve) => setTimeout(resolve, 50))
  await journal.idle()
  assert.equal(fs.existsSync(path.join(dir, 'api.jsonl')), false)
})

test('why in words: every cause, and an empty journal', () => {
  const base = { at: Date.UTC(2026, 0, 2, 3, 4, 5), app: 'w', id: 1, instance: 0, pid: 7 }
  const say = (e) => renderWhy([{ ...base, ...e }], { now: base.at })
  assert.match(say({ event: 'restart', cause: { kind: 'watch', detail: 'src/a.js' } }), /restarted: a watched file changed \(src\/a\.js\)/)
  assert.match(say({ event: 'restart', cause: { kind: 'memory', detail: 'memory (93.4M > 80M)' } }), /restarted: over its memory limit: \(93\.4M > 80M\)/)
  assert.match(say({ event: 'restart', cause: { kind: 'cron', detail: null } }), /restarted: its cron_restart schedule/)
  assert.match(say({ event: 'restart', cause: { kind: 'liveness', detail: 'GET /h → 503' } }), /restarted: its liveness probe failed: GET \/h → 503/)
  assert.match(say({ event: 'restart', cause: { kind: 'watchdog', detail: 'p99 1.8 s (max_event_loop_delay 1s)' } }), /restarted: its event loop was blocked: p99 1\.8 s/)
  assert.match(say({ event: 'restart', cause: { kind: 'heap', detail: 'heap (1.6G > 1.5G)' } }), /restarted: its heap went over max_heap: \(1\.6G > 1\.5G\)/)
  assert.match(say({ event: 'restart', cause: { kind: 'command', detail: 'restart' } }), /restarted: your command `xpm restart`/)
  assert.match(say({ event: 'exit', code: 0, signal: 'SIGTERM', cause: { by: 'command', kind: 'command', detail: 'sendSignal SIGTERM' }, ranMs: 500, role: 'current', next: 'restart', delay: 0 }), /ended by SIGTERM from your command `xpm sendSignal` after running 500 ms/)
  assert.match(say({ event: 'exit', code: 0, signal: null, cause: { by: 'itself', kind: 'finished' }, ranMs: 5, role: 'current', next: 'stopped', reason: 'autorestart is off' }), /exited on its own with exit code 0 after running 5 ms; left stopped \(autorestart is off\)/)
  assert.match(say({ event: 'exit', code: 1, signal: null, cause: { by: 'itself', kind: 'crash' }, ranMs: 5, role: 'current', next: 'errored', reason: 'crash (exit code 1); 17 crashes in a row' }), /crashed: exit code 1 after running 5 ms; now errored: crash \(exit code 1\); 17 crashes in a row/)
  assert.match(say({ event: 'exit', code: 0, signal: null, cause: { by: 'xpm', kind: 'memory', detail: 'memory (1M > 1M)', gaveUp: '17 memory restarts' }, ranMs: 5, role: 'current', next: 'errored' }), /stopped by xpm: over its memory limit: \(1M > 1M\); gave up: 17 memory restarts/)
  const stopped = { ...base, event: 'exit', code: 0, signal: null, cause: { by: 'xpm', kind: 'command', detail: 'stop' }, ranMs: 3_700_000, role: 'current', next: null }
  assert.match(renderWhy([stopped], { now: base.at + 3 * 86_400_000 }), /^│ 2026-01-0\d \d\d:04:05 │ w\[0\] pid 7 │ stopped by xpm: your command `xpm stop` after running 1h 1m/m, 'the date when it is not today')
  assert.equal(renderWhy([], { target: 'api' }), 'Nothing recorded for api yet: no process of it has exited or restarted.\n')
  assert.equal(lastEventLine(null), '-')
  assert.match(lastEventLine({ ...base, event: 'restart', cause: { kind: 'cron' } }, { now: base.at }), /^restarted: its cron_restart schedule \(\d\d:04:05, pid 7\)$/)
  assert.deepEqual([duration(12), duration(1500), duration(90_000), duration(90_000_000)], ['12 ms', '1.5 s', '1m 30s', '1d 1h'])
})

// Issue 34 §4: a "; " inside a cause (an exec probe's command) is not a policy's give-up
test('why keeps a cause whole when it holds "; ", and splits only a give-up tail', () => {
  const { classify } = require('../../daemon/journal/causes')
  const probe = classify('liveness: exec "sleep 0.1; exit 3": exit code 3')
  assert.deepEqual(probe, { kind: 'liveness', detail: 'exec "sleep 0.1; exit 3": exit code 3' })
  const say = (cause) => renderWhy([{ event: 'exit', app: 'w', instance: 0, id: 0, pid: 9, at: 0, code: null, signal: 'SIGTERM', cause: { by: 'xpm', ...cause }, ranMs: 5, role: 'current', next: 'restart', delay: 0 }], { now: 0 })
  assert.match(say(probe), /its liveness probe failed: exec "sleep 0\.1; exit 3": exit code 3/)
  assert.doesNotMatch(say(probe), /gave up/)
  const gaveUp = classify('liveness: exec "a; b": exit code 1; 17 memory restarts within 1m (max_restarts 16)')
  assert.deepEqual(gaveUp, { kind: 'liveness', detail: 'exec "a; b": exit code 1', gaveUp: '17 memory restarts within 1m (max_restarts 16)' })
  assert.deepEqual(classify('memory (93M > 80M); 3 memory restarts in a row, each less than min_uptime (1s) after its start (max_restarts 2)'),
    { kind: 'memory', detail: 'memory (93M > 80M)', gaveUp: '3 memory restarts in a row, each less than min_uptime (1s) after its start (max_restarts 2)' })
})
