'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { createHome, waitFor, freePort, httpGet, fixture } = require('../helpers/xpm')
const { nodeHasReusePort } = require('../../lib/agent/reuse-port')
const { listenersOn } = require('../helpers/listeners')

// reuse_port (docs/reload.md#reuse_port): cluster workers listen with SO_REUSEPORT themselves.
// The daemon runs the CLI's Node (process.execPath), so these tests run where this Node has
// net.Server#listen({ reusePort }) and skip with the reason elsewhere; the refusal is tested
// where it does not.
const unsupported = process.platform !== 'linux'
  ? `reuse_port is Linux only; this is ${process.platform}`
  : nodeHasReusePort() ? false : `reuse_port needs Node >= 22.12; this is ${process.version}`

// A user and network namespace of our own, where tcp_migrate_req can be set (root there);
// false when it can, else why not (node:test takes null as a skip).
function netnsProblem () {
  if (unsupported) return unsupported
  const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && sysctl -qw net.ipv4.tcp_migrate_req=0'], { encoding: 'utf8', timeout: 10000 })
  return probe.status === 0 ? false : `cannot set net.ipv4.tcp_migrate_req in \`unshare -rn\` here: ${(probe.stderr || probe.error?.message || '').trim()}`
}

async function startReusePort (t, { instances = 2 } = {}) {
  const h = createHome(t)
  const port = await freePort()
  const res = await h.run(['start', fixture('echo-http.js'), '-i', String(instances), '--reuse-port', '--name', 'api'], { env: { PORT: String(port) } })
  assert.equal(res.code, 0, res.stderr)
  return { h, port, res }
}

test('reuse_port: each worker listens itself, readiness comes from the agent, and connections reach the workers while the daemon is SIGSTOPped', { skip: unsupported }, async (t) => {
  const { h, port } = await startReusePort(t)
  const workers = (await h.jlist()).map((p) => p.pid)
  assert.equal(workers.length, 2)
  assert.ok((await h.jlist()).every((p) => p.status === 'online'))
  // The daemon learnt that the app listens (state.json's `listens`) from the agent's report: the
  // primary's own `listening` event never fires for a socket it does not hold.
  await waitFor(() => {
    const state = JSON.parse(fs.readFileSync(path.join(h.home, 'state.json'), 'utf8'))
    return JSON.stringify(state).includes('"listens":true')
  }, { message: 'listens: true in state.json' })
  const daemon = h.daemonPid()
  process.kill(daemon, 'SIGSTOP')
  const seen = new Set()
  try {
    for (let i = 0; i < 24; i++) {
      const res = await httpGet(port, '/', { timeout: 3000 })
      assert.equal(res.status, 200)
      seen.add(res.json.pid)
    }
  } finally {
    process.kill(daemon, 'SIGCONT')
  }
  assert.deepEqual([...seen].sort(), [...workers].sort(), 'the kernel spreads new connections over both workers')
})

// The inodes of the listening TCP sockets on `port`.
const inodesOn = (port) => listenersOn(port).map((l) => l.inode)

test('reuse_port: one listening socket per worker; a reload keeps the same sockets (handed over), scale adds and removes one', { skip: unsupported }, async (t) => {
  const { h, port } = await startReusePort(t)
  const two = await waitFor(() => inodesOn(port).length === 2 && inodesOn(port), { message: '2 listening sockets' })
  assert.equal((await h.run(['reload', 'api'])).code, 0)
  assert.deepEqual(inodesOn(port), two, 'the replacements listen on the sockets of the workers they replaced')
  assert.equal((await h.run(['scale', 'api', '3'])).code, 0)
  await waitFor(() => inodesOn(port).length === 3, { message: '3 listening sockets' })
  assert.equal((await h.run(['scale', 'api', '1'])).code, 0)
  await waitFor(() => inodesOn(port).length === 1, { message: '1 listening socket' })
  assert.equal((await httpGet(port)).status, 200)
})

// Without tcp_migrate_req, closing a SO_REUSEPORT socket resets the connections queued on it: a
// reload must close none (the replacement takes over the old worker's socket). Run in a network
// namespace of its own with the setting at 0 where one can be made, else on this machine as it is.
const noNetns = netnsProblem()
test(`reuse_port: two reloads under load fail no request (new connections and keep-alive), tcp_migrate_req = 0${noNetns ? ' (here: as this machine has it)' : ''}`, { skip: unsupported }, async (t) => {
  const h = createHome(t)
  const helper = path.join(__dirname, '..', 'helpers', 'reuse-port-reload.js')
  const script = `ip link set lo up && sysctl -qw net.ipv4.tcp_migrate_req=0 && exec "${process.execPath}" "${helper}"`
  const child = noNetns
    ? spawn(process.execPath, [helper], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('unshare', ['-rn', 'sh', '-c', script], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const code = await new Promise((resolve) => child.on('close', resolve))
  assert.equal(code, 0, stderr)
  const seen = JSON.parse(stdout)
  assert.deepEqual(seen.reloads, [0, 0])
  assert.equal(seen.after.length, 2)
  assert.ok(seen.after.every((p) => p.status === 'online' && !seen.before.includes(p.pid)))
  assert.equal(seen.fresh.failed, 0, `new connections: ${JSON.stringify(seen.fresh.errors)}`)
  assert.equal(seen.kept.failed, 0, `keep-alive: ${JSON.stringify(seen.kept.errors)}`)
})

test('reuse_port: a reload lets the old worker answer its in-flight request before it is signalled', { skip: unsupported }, async (t) => {
  const h = createHome(t)
  const port = await freePort()
  const start = await h.run(['start', fixture('slow-response.js'), '-i', '1', '--reuse-port', '--name', 'slow'], { env: { PORT: String(port), SLOW_MS: '1500' } })
  assert.equal(start.code, 0, start.stderr)
  const [old] = (await h.jlist()).map((p) => p.pid)
  await waitFor(async () => (await httpGet(port, '/', { timeout: 3000 })).status === 200)
  const logs = path.join(h.home, 'logs')
  const received = () => fs.readdirSync(logs).filter((f) => f.startsWith('slow-out')).map((f) => fs.readFileSync(path.join(logs, f), 'utf8').split('request received').length - 1).reduce((a, b) => a + b, 0)
  const before = received()
  const inFlight = httpGet(port, '/', { timeout: 10000 })
  await waitFor(() => received() > before, { message: 'the slow request reached the worker' })
  const reload = await h.run(['reload', 'slow'])
  assert.equal(reload.code, 0, reload.stderr + reload.stdout)
  const res = await inFlight
  assert.equal(res.status, 200)
  assert.equal(res.json.pid, old, 'answered by the retired worker')
})

test('reuse_port is refused where the daemon\'s Node cannot listen with reusePort: XPM_ERR_REUSE_PORT_UNSUPPORTED, exit 2, nothing started', { skip: unsupported ? false : `this Node (${process.version}) has reusePort` }, async (t) => {
  const h = createHome(t)
  const res = await h.run(['start', fixture('echo-http.js'), '-i', '2', '--reuse-port', '--name', 'api'], { env: { PORT: '0' } })
  assert.equal(res.code, 2, res.stdout)
  assert.match(res.stderr, /XPM_ERR_REUSE_PORT_UNSUPPORTED/)
  assert.match(res.stderr, /Node 22\.12 or later/)
  assert.deepEqual(await h.jlist(), [])
})

test('reuse_port in fork mode is refused (XPM_ERR_CONFIG_INVALID, exit 2): a fork-mode process listens itself already', async (t) => {
  const h = createHome(t)
  const res = await h.run(['start', fixture('echo-http.js'), '--reuse-port', '--name', 'solo'], { env: { PORT: '0' } })
  assert.equal(res.code, 2, res.stdout)
  assert.match(res.stderr, /reuse_port\) applies to cluster mode only.*XPM_ERR_CONFIG_INVALID/)
  assert.deepEqual(await h.jlist(), [])
})
