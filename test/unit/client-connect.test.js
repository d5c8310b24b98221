'use strict'

// lib/cli/client.js connectOnce: a connection the daemon accepts and then closes without its
// hello (it died, or is exiting) fails at once, not at the hello timeout, which is 30 s for the
// second try at a daemon that is slow to answer. A listener in this process; no process started.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { connectOnce } = require('../../lib/cli/client')
const { tempDir } = require('../helpers/tmp')

test('a connection closed before the hello fails at once, not at the hello timeout', async (t) => {
  const dir = tempDir('xpm-client-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const sock = path.join(dir, 'daemon.sock')
  const server = net.createServer((s) => s.destroy()) // accepted, then gone without a word
  await new Promise((resolve) => server.listen(sock, resolve))
  t.after(() => server.close())
  const started = Date.now()
  const err = await connectOnce(sock, { timeout: 30000 }).then(() => null, (e) => e)
  assert.ok(err, 'no client without a hello')
  assert.equal(err.code, 'XPM_ERR_DAEMON_UNREACHABLE')
  assert.equal(err.details.reason, 'ECONNRESET')
  assert.ok(Date.now() - started < 5000, `failed after ${Date.now() - started} ms`)
})
