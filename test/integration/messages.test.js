'use strict'

// Messages that help when something fails (issue 23), on a real daemon through the real CLI:
// a failed reload shows the new code's error as a failed start does, says the truth about what
// still serves, and names the process once.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, freePort, fixture, waitFor, BIN } = require('../helpers/xpm')

function appCopy (h, name, as) {
  const file = path.join(h.home, as)
  fs.copyFileSync(fixture(name), file)
  return file
}

for (const mode of ['fork', 'cluster']) {
  test(`a failed ${mode}-mode reload shows the new code's stderr, names the process once, and says whether the old one still serves`, async (t) => {
    const h = createHome(t, { inProcess: true })
    const port = await freePort()
    const script = appCopy(h, 'echo-http.js', 'app.js')
    const start = await h.run(['start', script, '--name', 'api', ...(mode === 'cluster' ? ['-i', '1'] : []), '--listen-timeout', '3s'], { env: { PORT: String(port) } })
    assert.equal(start.code, 0, start.stderr)
    fs.copyFileSync(fixture('missing-module.js'), script)
    const res = await h.run(['reload', 'api'])
    assert.notEqual(res.code, 0)
    assert.match(res.stderr, /last lines of api\[0\] \(pid \d+\) on stderr:\n(?: {2}.*\n)*? {2}Error: Cannot find module 'a-module-that-is-not-installed'/)
    assert.doesNotMatch(res.stderr, /api\[0\] api\[0\]/)
    assert.doesNotMatch(res.stdout, /api\[0\]: FAILED – api\[0\]/)
    if (mode === 'cluster') {
      assert.match(res.stderr, /the replacement of api\[0\] \(pid \d+\) exited with code 1 before it was ready; the old worker keeps serving/)
    } else {
      assert.doesNotMatch(res.stderr + res.stdout, /keeps? serving/)
      assert.match(res.stderr, /stopped: api\[0\] \(pid \d+\) exited with code 1 before it was ready; api\[0\] is (waiting restart \(xpm keeps restarting it\)|errored), not serving/)
    }
    await h.run(['delete', 'api'])
  })
}

test('Ctrl-C on `xpm logs` ends it quietly, exit 0: the user closed the stream, not the daemon', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('tick-lines.js'), '--name', 'ticker'])).code, 0)
  const child = spawn(process.execPath, [BIN, 'logs', 'ticker', '--lines', '1'], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => { try { child.kill('SIGKILL') } catch {} })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  await waitFor(() => stdout.split('\n').filter(Boolean).length >= 2, { message: `lines streamed\n${stdout}${stderr}` })
  child.kill('SIGINT')
  const { code } = await exited
  assert.equal(code, 0, stderr)
  assert.doesNotMatch(stderr, /closed the log stream/)
})
