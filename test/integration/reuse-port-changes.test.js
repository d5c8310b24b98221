'use strict'

// reuse_port (docs/reload.md#reuse_port) when the spec changes under a running app: a new listen
// address, the mode itself, and listens that set `exclusive` themselves.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { createHome, waitFor, freePort, fixture } = require('../helpers/xpm')
const { listenersOn } = require('../helpers/listeners')
const { nodeHasReusePort } = require('../../lib/agent/reuse-port')

const unsupported = process.platform !== 'linux'
  ? `reuse_port is Linux only; this is ${process.platform}`
  : nodeHasReusePort() ? false : `reuse_port needs Node >= 22.12; this is ${process.version}`

// One cluster app `api` of echo-http.js in <home>/app/ecosystem.config.js.
function ecosystem (h, { port, instances = 2, reusePort = true, env = {} }) {
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir, { recursive: true })
  const app = { name: 'api', script: fixture('echo-http.js'), instances, exec_mode: 'cluster', reuse_port: reusePort, env: { PORT: String(port), ...env } }
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps: [app] })}\n`)
  return file
}

function get (host, port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port, path: '/', agent: false, timeout: 5000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(body) }))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
  })
}

test('reuse_port: a reload that changes the listen address (127.0.0.1 → 127.0.0.2) listens on the new address, and the next reload hands its sockets over', { skip: unsupported }, async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const file = ecosystem(h, { port, env: { LISTEN_HOST: '127.0.0.1' } })
  const start = await h.run(['start', file])
  assert.equal(start.code, 0, start.stderr)
  await waitFor(() => listenersOn(port).filter((l) => l.address === '127.0.0.1').length === 2, { message: '2 sockets on 127.0.0.1' })

  ecosystem(h, { port, env: { LISTEN_HOST: '127.0.0.2' } })
  const reload = await h.run(['reload', file])
  assert.equal(reload.code, 0, reload.stderr + reload.stdout)
  const moved = await waitFor(() => {
    const now = listenersOn(port)
    return now.length === 2 && now.every((l) => l.address === '127.0.0.2') && now
  }, { message: 'the 2 sockets on 127.0.0.2, none left on 127.0.0.1' })
  const res = await get('127.0.0.2', port)
  assert.equal(res.status, 200)
  assert.equal(res.json.env.LISTEN_HOST, '127.0.0.2')
  await assert.rejects(get('127.0.0.1', port), { code: 'ECONNREFUSED' })

  assert.equal((await h.run(['reload', 'api'])).code, 0)
  assert.deepEqual(listenersOn(port), moved, 'the same address: the sockets are handed over')
})

// Requests until each of `pids` has answered; returns each one's environment.
async function envOf (port, pids) {
  const seen = new Map()
  await waitFor(async () => {
    const res = await get('127.0.0.1', port)
    seen.set(res.json.pid, res.json.env)
    return pids.every((p) => seen.has(p))
  }, { message: `answers from ${pids.join(', ')}` })
  return pids.map((p) => seen.get(p))
}

for (const [from, to] of [[false, true], [true, false]]) {
  test(`turning reuse_port ${to ? 'on' : 'off'}: a reload is refused before anything changes (XPM_ERR_RELOAD_MODE_CHANGE, exit 2; a crashed worker comes back in the old mode), a restart applies it`, { skip: unsupported }, async (t) => {
    const h = createHome(t)
    const port = await freePort()
    const file = ecosystem(h, { port, reusePort: from })
    assert.equal((await h.run(['start', file])).code, 0)
    const before = (await h.jlist()).map((p) => p.pid)

    ecosystem(h, { port, reusePort: to })
    const reload = await h.run(['reload', file])
    assert.equal(reload.code, 2, reload.stdout + reload.stderr)
    assert.match(reload.stderr, /Reload of api refused: its new spec turns reuse_port (on|off).*nothing was changed.*\[XPM_ERR_RELOAD_MODE_CHANGE\]/s)
    assert.deepEqual((await h.jlist()).map((p) => p.pid), before, 'no worker was replaced')
    process.kill(before[0], 'SIGKILL')
    const [again] = await waitFor(async () => {
      const list = await h.jlist()
      return list[0].status === 'online' && list[0].pid !== before[0] && list.map((p) => p.pid)
    }, { message: 'api[0] restarted after its crash' })
    const [env] = await envOf(port, [again])
    assert.equal(env.XPM_REUSE_PORT, from ? '1' : undefined, 'the crashed worker came back in the mode the app runs in')

    const restart = await h.run(['restart', file])
    assert.equal(restart.code, 0, restart.stdout + restart.stderr)
    const after = (await h.jlist())
    assert.ok(after.every((p) => p.status === 'online' && !before.includes(p.pid) && p.pid !== again), JSON.stringify(after))
    for (const e of await envOf(port, after.map((p) => p.pid))) assert.equal(e.XPM_REUSE_PORT, to ? '1' : undefined)
    // reuse_port: one socket per worker; round-robin: the daemon's one
    await waitFor(() => listenersOn(port).length === (to ? 2 : 1), { message: `${to ? 2 : 1} listening sockets` })
  })
}

test('reuse_port: an app whose listen() sets exclusive: true runs 2 instances, each on a socket of its own, and a reload hands them over (no EADDRINUSE crash loop)', { skip: unsupported }, async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const file = ecosystem(h, { port, env: { LISTEN_EXCLUSIVE: '1' } })
  const start = await h.run(['start', file])
  assert.equal(start.code, 0, start.stdout + start.stderr)
  const list = await h.jlist()
  assert.deepEqual(list.map((p) => [p.status, p.restarts]), [['online', 0], ['online', 0]])
  const two = await waitFor(() => listenersOn(port).length === 2 && listenersOn(port), { message: '2 listening sockets' })
  await envOf(port, list.map((p) => p.pid))
  assert.equal((await h.run(['reload', 'api'])).code, 0)
  assert.deepEqual(listenersOn(port), two)
})

test('without reuse_port (round-robin) a listen() with exclusive: true binds in each worker, as Node\'s cluster does: the second instance fails with EADDRINUSE (docs/reload.md)', async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const file = ecosystem(h, { port, reusePort: false, env: { LISTEN_EXCLUSIVE: '1' } })
  const start = await h.run(['start', file])
  assert.equal(start.code, 1, start.stdout + start.stderr)
  assert.match(start.stderr, /EADDRINUSE/)
})
