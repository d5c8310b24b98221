'use strict'

// on_event hooks (daemon/hooks): which events fire which commands, with what, bounded; and the
// bounded command runner they share with exec probes.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventBus } = require('../../daemon/event-bus')
const { createHooks } = require('../../daemon/hooks')
const { runCommand, createLimiter } = require('../../daemon/hooks/run-command')
const { parseHooks } = require('../../lib/config/health-types')
const { waitFor } = require('../helpers/wait')
const { running, pidsWithEnv } = require('../helpers/procs')

function world (onEvent) {
  const supervisor = new EventBus()
  const spec = { name: 'api', cwd: '/srv/api', env: { WEBHOOK: 'https://chat.example' }, onEvent }
  const inst = { id: 4, index: 1, pid: 4321, restarts: 2 }
  supervisor.apps = new Map([['api', { spec, instances: [inst] }]])
  return supervisor
}

test('events: a crash, errored, a policy restart, a failed reload; not stops, not user restarts', async () => {
  const supervisor = world(parseHooks({ 'crash,errored': 'page.sh', restart: 'chat.sh', reload_failed: 'chat.sh' }))
  const runs = []
  const hooks = createHooks({ supervisor, clock: () => 0, hostname: 'box', run: async (r) => { runs.push(r); return { ok: true, ms: 1 } } })
  supervisor.emit('exit', { id: 4, name: 'api', instance: 1, pid: 4000, code: 1, signal: null, ranMs: 900, role: 'current', next: 'restart', delay: 100, stopCause: null })
  supervisor.emit('exit', { id: 4, name: 'api', instance: 1, pid: 4001, code: 0, signal: 'SIGINT', role: 'current', next: null, stopCause: 'stop' })
  supervisor.emit('exit', { id: 4, name: 'api', instance: 1, pid: 4002, code: 0, signal: null, role: 'current', next: 'stopped', stopCause: null })
  supervisor.emit('exit', { id: 4, name: 'api', instance: 1, pid: 4003, code: 1, signal: null, role: 'spare', next: null, stopCause: null })
  supervisor.emit('status', { id: 4, name: 'api', to: 'errored', pid: 0, reason: '17 crashes in a row' })
  supervisor.emit('status', { id: 4, name: 'api', to: 'online', pid: 5 })
  supervisor.emit('restart', { id: 4, name: 'api', instance: 1, reason: 'liveness: GET /healthz → 503' })
  supervisor.emit('restart', { id: 4, name: 'api', instance: 1, reason: 'manual' })
  supervisor.emit('restart', { id: 4, name: 'api', instance: 1, reason: 'crash (exit code 1)' })
  supervisor.emit('replace-failed', { id: 4, name: 'api', instance: 1, pid: 6, oldPid: 5, cause: 'reload', reason: 'exited with code 3 before it was ready' })
  await hooks.idle()
  assert.deepEqual(runs.map((r) => [r.command, r.env.XPM_EVENT]), [['page.sh', 'crash'], ['page.sh', 'errored'], ['chat.sh', 'restart'], ['chat.sh', 'reload_failed']])
  const crash = runs[0]
  assert.deepEqual(JSON.parse(crash.input), {
    event: 'crash', app: 'api', id: 4, instance: 1, pid: 4000, code: 1, signal: null, cause: 'crash (exit code 1)', reason: null, next: 'restart', delay: 100, ranMs: 900, restarts: 2, time: '1970-01-01T00:00:00.000Z', host: 'box'
  })
  assert.deepEqual([crash.env.XPM_EVENT_APP, crash.env.XPM_EVENT_PID, crash.env.XPM_EVENT_CODE, crash.env.XPM_EVENT_CAUSE, crash.env.WEBHOOK], ['api', '4000', '1', 'crash (exit code 1)', 'https://chat.example'])
  assert.deepEqual([crash.cwd, crash.timeoutMs], ['/srv/api', 10000])
  assert.equal(JSON.parse(runs[2].input).cause, 'liveness')
  hooks.close()
})

test('failures are logged with what the hook printed; past the queue, hooks are dropped and logged', async () => {
  const supervisor = world(parseHooks('notify'))
  const logs = []
  const logger = { info: (o, m) => logs.push(['info', m]), warn: (o, m) => logs.push(['warn', m]) }
  const results = [{ ok: false, code: 3, stderr: 'no route to chat\nmore' }, { ok: false, timedOut: true }, { ok: false, error: 'ENOENT' }, { ok: true, ms: 5 }]
  let release
  const gate = new Promise((resolve) => { release = resolve })
  const hooks = createHooks({ supervisor, logger, limiter: createLimiter(1, { queueLimit: 2 }), run: async () => { await gate; return results.shift() } })
  for (let n = 0; n < 5; n++) supervisor.emit('status', { id: 4, name: 'api', to: 'errored' })
  release()
  await hooks.idle()
  const text = logs.map(([level, m]) => `${level} ${m}`).join('\n')
  assert.match(text, /warn api: on_event errored hook "notify" exited with code 3: no route to chat \| more/)
  assert.match(text, /warn api: on_event errored hook "notify" timed out and was killed/)
  assert.match(text, /warn api: on_event errored hook "notify" could not run \(ENOENT\)/)
  assert.match(text, /warn api: on_event errored hook "notify" dropped: 64 hooks already waiting/)
  hooks.close()
})

test('the runner: stdin, output kept up to a bound, the whole group killed at the deadline', async () => {
  const env = { PATH: process.env.PATH }
  const echo = await runCommand({ command: 'cat; echo "$X" >&2', cwd: process.cwd(), env: { ...env, X: 'from env' }, input: '{"event":"crash"}' })
  assert.deepEqual([echo.ok, echo.code, echo.stdout, echo.stderr], [true, 0, '{"event":"crash"}', 'from env\n'])
  const big = await runCommand({ command: 'head -c 100000 /dev/zero | tr "\\0" a', cwd: process.cwd(), env, maxOutput: 1000 })
  assert.equal(big.stdout.length, 1000)
  const slow = await runCommand({ command: 'sleep 30 & sleep 30; echo never', cwd: process.cwd(), env, timeoutMs: 200 })
  assert.deepEqual([slow.ok, slow.timedOut, slow.signal], [false, true, 'SIGKILL'])
  assert.ok(slow.ms < 5000)
  const missing = await runCommand({ command: 'true', cwd: '/nonexistent-xpm-dir', env })
  assert.equal(missing.ok, false)
  assert.equal(missing.error, 'ENOENT')
  const failing = await runCommand({ command: 'exit 7', cwd: process.cwd(), env })
  assert.deepEqual([failing.ok, failing.code], [false, 7])
})

test('the runner leaves nothing behind: what a command put in the background ends at its deadline, and an abort ends the whole group', async (t) => {
  const env = { PATH: process.env.PATH }
  const left = []
  t.after(() => { for (const pid of left) try { process.kill(pid, 'SIGKILL') } catch {} })
  // the command exits at once; its background child used to outlive every deadline
  const quick = await runCommand({ command: 'sleep 30 >/dev/null 2>&1 & echo $!', cwd: process.cwd(), env, timeoutMs: 300 })
  const background = Number(quick.stdout.trim())
  left.push(background)
  assert.deepEqual([quick.ok, quick.timedOut], [true, false], 'the result does not wait for the leftovers')
  assert.ok(running(background), 'still running before the deadline')
  await waitFor(() => !running(background), { timeout: 5000, message: `pid ${background} ended at the command's deadline` })

  const mark = `XPM_TEST_MARK=${process.pid}-${Date.now()}`
  const ctrl = new AbortController()
  const pending = runCommand({ command: 'sleep 30 & sleep 30', cwd: process.cwd(), env: { ...env, [mark.split('=')[0]]: mark.split('=')[1] }, timeoutMs: 60000, signal: ctrl.signal })
  const group = await waitFor(() => { const p = pidsWithEnv([mark]); return p.length >= 3 && p }, { timeout: 5000, message: 'the shell and its two sleeps' })
  left.push(...group)
  ctrl.abort(new Error('deleted'))
  const ended = await pending
  assert.deepEqual([ended.ok, ended.aborted], [false, true])
  await waitFor(() => pidsWithEnv([mark]).length === 0, { timeout: 5000, message: 'the whole group ended' })
})
