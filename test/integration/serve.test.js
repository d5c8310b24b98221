'use strict'

// `xpm serve` as a user deploys it: the folder is a link to the current release, and a missing
// page's 404.html may be unreadable. Real daemon, real server processes, loopback only.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { createHome, waitFor, freePort, httpGet } = require('../helpers/xpm')
const { tempDir } = require('../helpers/tmp')
const { nobodySkipReason } = require('../helpers/nobody')
const { SCRIPT } = require('../../lib/shared/serve/static-server')

const ok = (res) => assert.equal(res.code, 0, `exit ${res.code}\n${res.stdout}\n${res.stderr}`)
const NOBODY = 65534

test('xpm serve /var/www/current (a link to a release): the release\'s files, the next release after a switch, no link out of it', async (t) => {
  const h = createHome(t)
  const www = fs.mkdtempSync(path.join(h.home, 'www-'))
  for (const name of ['r1', 'r2']) {
    fs.mkdirSync(path.join(www, name))
    fs.writeFileSync(path.join(www, name, 'index.html'), `release ${name}`)
    fs.writeFileSync(path.join(www, name, 'app.js'), `// ${name}`)
  }
  fs.writeFileSync(path.join(www, 'secret.txt'), 'secret')
  fs.symlinkSync(path.join(www, 'secret.txt'), path.join(www, 'r1', 'leak.txt'))
  const current = path.join(www, 'current')
  fs.symlinkSync(path.join(www, 'r1'), current)
  const port = await freePort()
  ok(await h.run(['serve', current, String(port), '--host', '127.0.0.1', '--name', 'site']))
  assert.deepEqual(await httpGet(port, '/'), { status: 200, body: 'release r1', json: null })
  assert.equal((await httpGet(port, '/app.js')).body, '// r1')
  for (const p of ['/leak.txt', '/../secret.txt', '/../r2/app.js']) assert.equal((await httpGet(port, p)).status, 404, p)

  fs.symlinkSync(path.join(www, 'r2'), path.join(www, 'current.next'))
  fs.renameSync(path.join(www, 'current.next'), current)
  assert.equal((await httpGet(port, '/app.js')).body, '// r2', 'the switched link is followed at the next request')
  ok(await h.run(['delete', 'site']))
})

// The server runs as another user when this runs as root: root reads a mode-000 file anyway.
const asOther = process.getuid?.() === 0
test('a 404.html the server cannot read: a plain 404 for every missing page, and the server answers on (it used to crash)', { skip: asOther && nobodySkipReason() }, async (t) => {
  const root = tempDir('xpm-serve-unreadable-')
  fs.chmodSync(root, 0o755)
  fs.writeFileSync(path.join(root, 'index.html'), 'home', { mode: 0o644 })
  fs.writeFileSync(path.join(root, '404.html'), 'custom missing', { mode: 0o000 })
  fs.chmodSync(path.join(root, '404.html'), 0o000)
  const port = await freePort()
  const child = spawn(process.execPath, [SCRIPT], {
    env: { PATH: process.env.PATH, PM2_SERVE_PATH: root, PM2_SERVE_PORT: String(port), PM2_SERVE_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asOther ? { uid: NOBODY, gid: NOBODY } : {})
  })
  let output = ''
  for (const s of [child.stdout, child.stderr]) s.on('data', (d) => { output += d })
  const exited = once(child, 'exit')
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid, 'SIGKILL')
      await exited
    }
  })
  await waitFor(() => output.includes('serving'), { message: `the server listening (${output})` })
  for (let i = 0; i < 3; i++) {
    const res = await httpGet(port, `/missing-${i}`)
    assert.deepEqual([res.status, res.body], [404, '404 Not Found'], output)
  }
  assert.equal((await httpGet(port, '/')).body, 'home')
  assert.equal(child.exitCode, null, `the server is still running\n${output}`)
})
