'use strict'

// The bounded command runner of on_event hooks and exec probes (daemon/hooks/run-command.js),
// on real shell commands: output bounded, deadlines, and no process left behind.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { runCommand } = require('../../daemon/hooks/run-command')
const { waitFor } = require('../helpers/wait')
const { running, pidsWithEnv } = require('../helpers/procs')

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
