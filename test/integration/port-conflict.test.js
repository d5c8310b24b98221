'use strict'

// Two apps of one home on one port would split its connections between them (docs/reload.md,
// "Two apps on one port"): the second is refused, naming the first.
const test = require('node:test')
const assert = require('node:assert/strict')
const { createHome, freePort, httpGet, fixture } = require('../helpers/xpm')
const { nodeHasReusePort } = require('../../lib/agent/reuse-port')

const noReusePort = process.platform !== 'linux' || !nodeHasReusePort() ? `reuse_port needs Linux and Node >= 22.12; this is ${process.platform}, ${process.version}` : false

for (const mode of ['round-robin', 'reuse_port']) {
  test(`${mode}: a second app that listens on the port of another is refused (XPM_ERR_PORT_TAKEN, naming the first), errored, and every connection still reaches the first`, { skip: mode === 'reuse_port' && noReusePort }, async (t) => {
    const h = createHome(t)
    const port = await freePort()
    const flags = mode === 'reuse_port' ? ['--reuse-port'] : []
    const a = await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'a', ...flags], { env: { PORT: String(port) } })
    assert.equal(a.code, 0, a.stderr)
    const first = (await h.jlist()).map((p) => p.pid)
    const b = await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'b', ...flags], { env: { PORT: String(port) } })
    assert.equal(b.code, 1, b.stdout + b.stderr)
    assert.match(b.stderr, new RegExp(`listened on port ${port}, where app "a" listens already \\(a\\[\\d\\], pid \\d+\\)`))
    assert.match(b.stderr, /two apps on one port would split its connections between them; see `xpm logs b` \[XPM_ERR_PORT_TAKEN\]/)
    const list = await h.jlist()
    assert.deepEqual(list.map((p) => [p.name, p.status]), [['a', 'online'], ['a', 'online'], ['b', 'errored'], ['b', 'errored']])
    const show = await h.run(['show', 'b'])
    assert.match(show.stdout, new RegExp(`port taken: port ${port} is app "a"'s`))
    for (let i = 0; i < 12; i++) assert.ok(first.includes((await httpGet(port)).json.pid), 'answered by app a')
  })
}
