'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const net = require('node:net')
const path = require('node:path')
const { execFileSync, spawnSync } = require('node:child_process')
const { createHome, freePort, httpGet, fixture, isAlive, waitFor, ROOT } = require('../helpers/xpm')
const { daemonNodeFlags } = require('../../lib/cli/daemon-node-flags')

const ok = (res) => assert.equal(res.code, 0, res.stderr)
const SYSTEMD_ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((f) => fs.existsSync(f))

test('xpm startup prints a valid systemd unit: Type=simple, no PID file, Restart=always, absolute paths, this user and XPM_HOME', async (t) => {
  const h = createHome(t)
  const res = await h.run(['startup'])
  ok(res)
  const unit = res.stdout
  assert.match(res.stderr, /xpm startup --install/)
  const file = path.join(h.home, 'xpm-test.service')
  fs.writeFileSync(file, unit)

  const sections = [...unit.matchAll(/^\[(\w+)\]$/gm)].map((m) => m[1])
  assert.deepEqual(sections, ['Unit', 'Service', 'Install'])
  const keys = unit.split('\n').filter((l) => l && !l.startsWith('[')).map((l) => l.split('=')[0])
  for (const key of keys) assert.match(key, /^[A-Za-z]+$/)
  assert.match(unit, /^Type=simple$/m)
  assert.match(unit, /^Restart=always$/m)
  assert.doesNotMatch(unit, /PIDFile/)
  assert.match(unit, new RegExp(`^User=${os.userInfo().username}$`, 'm'))
  assert.match(unit, new RegExp(`^Environment=XPM_HOME=${h.home}$`, 'm'))
  const exec = unit.match(/^ExecStart=(.*)$/m)[1].split(' ')
  const flags = daemonNodeFlags() // the daemon's V8 flags (lib/cli/daemon-node-flags.js)
  assert.equal(exec[0], process.execPath)
  assert.deepEqual(exec.slice(1, 1 + flags.length), flags)
  assert.equal(exec[1 + flags.length], path.join(ROOT, 'daemon', 'index.js'))
  assert.ok(path.isAbsolute(exec[0]) && fs.existsSync(exec[1 + flags.length]))
  assert.deepEqual(exec.slice(2 + flags.length), ['--foreground', '--resurrect'])
  assert.match(unit, /^WantedBy=multi-user\.target$/m)

  if (SYSTEMD_ANALYZE) {
    const verify = spawnSync(SYSTEMD_ANALYZE, ['verify', file], { encoding: 'utf8' })
    // without a running systemd it may complain about its environment, never about the unit
    const aboutUnit = `${verify.stdout}\n${verify.stderr}`.split('\n').filter((l) => l.includes('xpm-test.service'))
    assert.deepEqual(aboutUnit, [], `systemd-analyze verify: ${verify.stderr}`)
  }

  const user = await h.run(['startup', '--user'])
  ok(user)
  assert.doesNotMatch(user.stdout, /^User=/m)
  assert.match(user.stdout, /^WantedBy=default\.target$/m)
})

test('xpm update replaces the daemon, restores every app and states the downtime', async (t) => {
  const h = createHome(t)
  const port = await freePort()
  ok(await h.run(['start', fixture('echo-http.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port), GREETING: 'kept' } }))
  ok(await h.run(['start', fixture('echo-http.js'), '--name', 'idle']))
  ok(await h.run(['stop', 'idle']))
  const before = await h.jlist()
  const oldDaemon = h.daemonPid()
  const res = await h.run(['update'])
  ok(res)
  assert.match(res.stdout, /daemon 0\.\d+\.\d+ \(pid \d+\) replaced by/)
  assert.match(res.stdout, /downtime: \d+ ms .* 2\/2 process\(es\) were online again/)
  assert.ok(!isAlive(oldDaemon))
  assert.notEqual(h.daemonPid(), oldDaemon)
  const after = await h.jlist()
  assert.deepEqual(after.map((p) => [p.id, p.name, p.status]), before.map((p) => [p.id, p.name, p.status]))
  assert.equal((await httpGet(port)).json.env.GREETING, 'kept')
  assert.equal(fs.existsSync(path.join(h.home, 'update.json')), false, 'the hand-over file is consumed')
  const next = await h.run(['list'])
  assert.doesNotMatch(next.stderr, /restored/, 'update acknowledged the notice itself')
})

// A stand-in for a daemon of another version: only the hello, `list` and `ping`.
async function fakeDaemon (t, home, hello) {
  const server = net.createServer((socket) => {
    socket.write(JSON.stringify({ event: 'hello', data: hello }) + '\n')
    let buf = ''
    socket.on('data', (d) => {
      buf += d
      let nl
      while ((nl = buf.indexOf('\n')) !== -1) {
        const msg = JSON.parse(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
        const result = msg.method === 'list' ? [] : msg.method === 'ping' ? { pong: true, pid: process.pid, version: hello.version } : undefined
        socket.write(JSON.stringify(result === undefined ? { id: msg.id, error: { code: 'XPM_ERR_UNKNOWN_METHOD', message: 'no' } } : { id: msg.id, result }) + '\n')
      }
    })
  })
  await new Promise((resolve) => server.listen(path.join(home, 'daemon.sock'), resolve))
  t.after(() => server.close())
  return server
}

test('a daemon of another version: compatible commands work with a hint to run `xpm update`; another protocol is refused with the same hint', async (t) => {
  const h = createHome(t)
  const server = await fakeDaemon(t, h.home, { protocol: 1, version: '0.0.1-old', pid: process.pid })
  const res = await h.run(['jlist'])
  ok(res)
  assert.equal(res.stdout.trim(), '[]')
  assert.match(res.stderr, /daemon is version 0\.0\.1-old.*run `xpm update`/)
  server.close()
  await waitFor(() => !server.listening)
  fs.rmSync(path.join(h.home, 'daemon.sock'), { force: true })
  await fakeDaemon(t, h.home, { protocol: 99, version: '9.0.0', pid: process.pid })
  const refused = await h.run(['list'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /protocol 99.*xpm update.*XPM_ERR_PROTOCOL_VERSION/)
})

test('the daemon started by the unit (--foreground --resurrect) restores the last save', async (t) => {
  const h = createHome(t)
  const port = await freePort()
  ok(await h.run(['start', fixture('echo-http.js'), '--name', 'boot'], { env: { PORT: String(port) } }))
  ok(await h.run(['save']))
  ok(await h.run(['kill']))
  const entry = path.join(ROOT, 'daemon', 'index.js')
  execFileSync(process.execPath, ['-e', `
    const { spawn } = require('node:child_process')
    const child = spawn(process.execPath, [${JSON.stringify(entry)}, '--foreground', '--resurrect'], { detached: true, stdio: 'ignore', env: { ...process.env } })
    child.unref()`], { env: h.env })
  // wait for its pid file: a CLI call before it listens would start a daemon of its own
  await waitFor(() => h.daemonPid() && isAlive(h.daemonPid()), { message: 'the foreground daemon to listen' })
  const list = await waitFor(async () => {
    const l = await h.jlist().catch(() => null)
    return l && l.length === 1 && l[0].status === 'online' && l
  }, { timeout: 15000, message: 'the saved app back online' })
  assert.equal(list[0].name, 'boot')
  assert.equal((await waitFor(() => httpGet(port), { message: 'the app to answer' })).status, 200)
})
