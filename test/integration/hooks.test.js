'use strict'

// on_event hooks with a real daemon (docs/health.md#hooks): the hook gets the crash as JSON on
// stdin and in XPM_EVENT_* variables; a hook that fails is logged, and changes nothing else.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture } = require('../helpers/xpm')

function daemonEvents (home) {
  let text = ''
  try { text = fs.readFileSync(path.join(home, 'daemon.log'), 'utf8') } catch {}
  return text.split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) } catch { return {} } })
}

test('a hook receives a crash event with the app, pid, exit code and cause; a failing hook is logged', async (t) => {
  const h = createHome(t, { inProcess: true })
  const out = path.join(h.home, 'hook-events.jsonl')
  const eco = path.join(h.home, 'ecosystem.config.js')
  const recorder = `"${process.execPath}" "${fixture('hook-recorder.js')}"`
  fs.writeFileSync(eco, `module.exports = { apps: [{
    name: 'crashy',
    script: ${JSON.stringify(fixture('crash-after-ms.js'))},
    env: { CRASH_AFTER_MS: '1200', HOOK_OUT: ${JSON.stringify(out)} },
    on_event: { 'crash,errored': [${JSON.stringify(recorder)}, 'echo "no route to chat" >&2; exit 3'], timeout: '5s' }
  }] }\n`)
  const res = await h.run(['start', eco])
  assert.equal(res.code, 0, res.stderr)
  const [proc] = await h.jlist()

  const events = await waitFor(() => {
    const lines = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []
    return lines.length >= 1 && lines
  }, { message: 'the hook to record the crash' })
  const { stdin, env, cwd } = events[0]
  assert.equal(stdin.event, 'crash')
  assert.equal(stdin.app, 'crashy')
  assert.equal(stdin.pid, proc.pid)
  assert.equal(stdin.code, 1)
  assert.equal(stdin.signal, null)
  assert.equal(stdin.cause, 'crash (exit code 1)')
  assert.equal(stdin.next, 'restart')
  assert.deepEqual([env.XPM_EVENT, env.XPM_EVENT_APP, env.XPM_EVENT_PID, env.XPM_EVENT_CODE, env.XPM_EVENT_CAUSE], ['crash', 'crashy', String(proc.pid), '1', 'crash (exit code 1)'])
  assert.equal(fs.realpathSync(cwd), fs.realpathSync(h.home), 'in the app\'s cwd (the ecosystem file\'s folder)')

  const failed = await waitFor(() => daemonEvents(h.home).find((e) => e.event === 'hook' && e.code === 3), { message: 'the failing hook in the daemon log' })
  assert.equal(failed.app, 'crashy')
  assert.match(failed.msg, /crashy: on_event crash hook "echo .*" exited with code 3: no route to chat/)
  // the app itself carries on: restarted after its crash
  await waitFor(async () => { const [p] = await h.jlist(); return p.restarts >= 1 && p.pid !== proc.pid }, { message: 'the crash restart' })
})

test('a hook still running at `xpm kill` ends with everything it started', async (t) => {
  const { pidsWithEnv } = require('../helpers/procs')
  const h = createHome(t, { inProcess: true })
  const mark = `${process.pid}-${Date.now()}`
  const eco = path.join(h.home, 'ecosystem.config.js')
  fs.writeFileSync(eco, `module.exports = { apps: [{
    name: 'crashy', script: ${JSON.stringify(fixture('crash-after-ms.js'))}, restart_delay: '1h',
    env: { CRASH_AFTER_MS: '300', XPM_HOOK_MARK: ${JSON.stringify(mark)} },
    on_event: { crash: 'sleep 120 & sleep 120', timeout: '10m' }
  }] }\n`)
  assert.equal((await h.run(['start', eco])).code, 0)
  const hook = await waitFor(() => { const pids = pidsWithEnv([`XPM_HOOK_MARK=${mark}`, 'XPM_EVENT=crash']); return pids.length >= 3 && pids }, { message: 'the hook and its two sleeps' })
  t.after(() => { for (const pid of hook) try { process.kill(pid, 'SIGKILL') } catch {} })
  assert.equal((await h.run(['kill'])).code, 0)
  await waitFor(() => pidsWithEnv([`XPM_HOOK_MARK=${mark}`]).length === 0, { timeout: 10000, message: 'the hook\'s processes to be gone after xpm kill' })
})
