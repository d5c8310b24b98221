'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createHome, waitFor, isAlive } = require('../helpers/xpm')
const { connectOnce } = require('../../lib/cli/client')

test('two CLI commands at the same moment with no daemon end up with exactly one daemon', async (t) => {
  const h = createHome(t)
  const [a, b, c] = await Promise.all([h.run(['ping']), h.run(['ping']), h.run(['ping'])])
  for (const r of [a, b, c]) assert.equal(r.code, 0, r.stderr)
  const pids = [a, b, c].map((r) => Number(/daemon pid (\d+)/.exec(r.stdout)[1]))
  assert.equal(new Set(pids).size, 1)
  assert.equal(pids[0], h.daemonPid())
})

test('XPM_HOME is 0700 and the socket 0600', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  assert.equal(fs.statSync(h.home).mode & 0o777, 0o700)
  assert.equal(fs.statSync(path.join(h.home, 'daemon.sock')).mode & 0o777, 0o600)
})

test('garbage, oversized lines, unknown methods and half-closed connections leave the daemon serving', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  const sock = path.join(h.home, 'daemon.sock')

  const raw = (payload, { half = false } = {}) => new Promise((resolve) => {
    const s = net.createConnection(sock)
    let data = ''
    s.on('data', (d) => { data += d })
    s.on('error', () => {})
    s.on('close', () => resolve(data))
    s.on('connect', () => {
      s.write(payload)
      if (half) s.end()
      else setTimeout(() => s.destroy(), 300)
    })
  })
  const replies = await raw('this is not json\n{"id":7,"method":"nope"}\n[1]\n')
  assert.match(replies, /XPM_ERR_PROTOCOL/)
  assert.match(replies, /"id":7.*XPM_ERR_UNKNOWN_METHOD/)
  await raw(Buffer.alloc(3 * 1024 * 1024, 0x61))
  await raw(Buffer.from([0xff, 0xfe, 0x00, 0x0a]))
  await raw('{"id":1,"method":"ping"', { half: true })
  await raw('{"id":1,"method":"show","params":{"target":{"x":1}}}\n{"id":2,"method":"start","params":{"specs":[{"name":"x"}]}}\n')

  const client = await connectOnce(sock)
  t.after(() => client.close())
  const pong = await client.request('ping')
  assert.equal(pong.pong, true)
  assert.equal(pong.pid, h.daemonPid())
  await assert.rejects(client.request('start', { specs: 'nope' }), { code: 'XPM_ERR_CONFIG_INVALID' })
})

test('a stale socket and pid file from a dead daemon are recovered from', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  const first = h.daemonPid()
  process.kill(first, 'SIGKILL')
  await waitFor(() => !isAlive(first))
  assert.ok(fs.existsSync(path.join(h.home, 'daemon.sock')))
  const again = await h.run(['ping'])
  assert.equal(again.code, 0, again.stderr)
  assert.notEqual(h.daemonPid(), first)
})

test('xpm kill with no daemon says so and exits 0', async (t) => {
  const h = createHome(t)
  const res = await h.run(['kill'])
  assert.equal(res.code, 0)
  assert.match(res.stdout, /no daemon/)
})

test('a daemon that is alive but slow to say hello (its machine saturated) is waited for, not reported unreachable', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  const pid = h.daemonPid()
  process.kill(pid, 'SIGSTOP') // stands for a daemon that gets no CPU for several seconds
  t.after(() => { try { process.kill(pid, 'SIGCONT') } catch {} })
  const { spawn } = require('node:child_process')
  const { BIN } = require('../helpers/xpm')
  const cli = spawn(process.execPath, [BIN, 'ping'], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => { if (cli.exitCode === null) cli.kill('SIGKILL') })
  let stdout = ''
  let stderr = ''
  cli.stdout.on('data', (d) => { stdout += d })
  cli.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => cli.once('exit', resolve))
  await waitFor(() => /is slow to answer; waiting up to 30 s/.test(stderr), { timeout: 20000, message: 'the CLI to say it waits' })
  process.kill(pid, 'SIGCONT')
  assert.equal(await exited, 0, stderr)
  assert.match(stdout, new RegExp(`pong \\(daemon pid ${pid},`))
})
