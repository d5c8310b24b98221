'use strict'

// Issue 34 §4: during a rename (`restart a --name b`) the list shows `a stopping`, then `b`;
// a command accepts either name for as long as the list shows it, and applies to the renamed app.
const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, waitFor, fixture } = require('../helpers/xpm')

for (const name of ['a', 'b']) {
  test(`during a rename a to b, \`stop ${name}\` is accepted and stops the renamed app`, async (t) => {
    const h = createHome(t)
    const start = await h.run(['start', fixture('slow-exit.js'), '--name', 'a'], { env: { EXIT_DELAY_MS: '1500' } })
    assert.equal(start.code, 0, start.stderr)
    const rename = h.run(['restart', 'a', '--name', 'b'])
    await waitFor(async () => (await h.jlist()).some((p) => p.name === 'a' && p.status === 'stopping'), { timeout: 10000, message: 'a stopping' })
    const stop = await h.run(['stop', name])
    assert.equal(stop.code, 0, `stop ${name} during the rename: ${stop.stderr}`)
    await rename
    const list = await h.jlist()
    assert.deepEqual(list.map((p) => [p.name, p.status]), [['b', 'stopped']])
  })
}
