'use strict'

// Messages that help when something fails (issue 23), on a real daemon through the real CLI:
// a failed reload shows the new code's error as a failed start does, says the truth about what
// still serves, and names the process once.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, freePort, fixture } = require('../helpers/xpm')

function appCopy (h, name, as) {
  const file = path.join(h.home, as)
  fs.copyFileSync(fixture(name), file)
  return file
}

for (const mode of ['fork', 'cluster']) {
  test(`a failed ${mode}-mode reload shows the new code's stderr, names the process once, and says whether the old one still serves`, async (t) => {
    const h = createHome(t)
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
