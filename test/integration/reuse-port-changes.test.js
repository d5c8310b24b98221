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
