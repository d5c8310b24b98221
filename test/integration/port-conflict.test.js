'use strict'

// Two apps of one home on one port would split its connections between them (docs/reload.md,
// "Two apps on one port"): the second is refused, naming the first.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
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

test('a reload whose new spec moves an app onto another app\'s port is refused at the replacement: the reload fails naming that app, and the old workers keep serving', async (t) => {
  const h = createHome(t)
  const [portA, portB] = [await freePort(), await freePort()]
  assert.equal((await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'a'], { env: { PORT: String(portA) } })).code, 0)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  const file = path.join(dir, 'ecosystem.config.js')
  const write = (port) => fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps: [{ name: 'b', script: fixture('echo-http.js'), instances: 1, exec_mode: 'cluster', env: { PORT: String(port) } }] })}\n`)
  write(portB)
  assert.equal((await h.run(['start', file])).code, 0)
  const [old] = (await h.jlist()).filter((p) => p.name === 'b').map((p) => p.pid)
  write(portA)
  const reload = await h.run(['reload', file])
  assert.equal(reload.code, 1, reload.stdout + reload.stderr)
  assert.match(reload.stderr, new RegExp(`Reload of b stopped: the replacement of b\\[0\\] \\(pid \\d+\\) listened on port ${portA}, where app "a" listens already.*the old worker keeps serving \\[XPM_ERR_RELOAD_FAILED\\]`))
  assert.equal((await httpGet(portB)).json.pid, old)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.name, p.status]), [['a', 'online'], ['a', 'online'], ['b', 'online']])
  for (let i = 0; i < 6; i++) assert.ok(list.filter((p) => p.name === 'a').map((p) => p.pid).includes((await httpGet(portA)).json.pid))
})
