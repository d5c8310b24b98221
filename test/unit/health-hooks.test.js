'use strict'

// on_event hooks (daemon/hooks): which events fire which commands, with what, bounded; and the
// runner itself runs real shell commands: test/integration/hooks-runner.test.js.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { EventBus } = require('../../daemon/event-bus')
const { createHooks } = require('../../daemon/hooks')
const { createLimiter } = require('../../daemon/hooks/run-command')
const { parseHooks } = require('../../lib/shared/config/health-types')

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
