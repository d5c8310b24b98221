'use strict'

// Every input is bounded (issue 14): limits of the config model enforced again by the daemon,
// wrong params with stable codes, back-pressure on replies, large replies that arrive.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createHome, waitFor, fixture, isAlive } = require('../helpers/xpm')
const { connectOnce } = require('../../lib/cli/client')
const { homePaths } = require('../../lib/shared/paths')
const { encode } = require('../../lib/shared/protocol')
const { normalizeApp } = require('../../lib/shared/config')

const KiB = 1024
const MiB = 1024 * KiB

async function daemon (t, h) {
  const res = await h.run(['ping'])
  assert.equal(res.code, 0, res.stderr)
  const client = await connectOnce(homePaths(h.home).socket)
  t.after(() => client.close())
  return client
}

// A spec as the CLI would send it, for a harmless script.
function specFor (h, raw = {}) {
  return normalizeApp({ name: 'idle', script: fixture('idle.js'), kill_timeout: '1s', ...raw }, { env: { PATH: process.env.PATH, XPM_HOME: h.home }, cpus: 2 })
}

function rssOf (pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * KiB
}

test('instances and durations beyond the limits are refused by the CLI and again by the daemon', async (t) => {
  const h = createHome(t, { inProcess: true })
  const client = await daemon(t, h)
  const many = await h.run(['start', fixture('idle.js'), '-i', '1000000000'])
  assert.equal(many.code, 2)
  assert.match(many.stderr, /Expected `--instances` to be at most 1024, got "1000000000" \[XPM_ERR_CONFIG_INVALID\]/)

  const file = path.join(h.home, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = { apps: [{ name: 'slow', script: ${JSON.stringify(fixture('idle.js'))}, kill_timeout: '25d' }] }`)
  const slow = await h.run(['start', file])
  assert.equal(slow.code, 2)
  assert.match(slow.stderr, /Expected `kill_timeout` to be at most 24d \(a longer delay does not fit a timer\), got "25d" in app "slow"/)

  const started = Date.now()
  await assert.rejects(client.request('start', { specs: [{ ...specFor(h), instances: 1e9 }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /instances should be a whole number from 1 to 1024, got 1000000000/ })
  await assert.rejects(client.request('start', { specs: [{ ...specFor(h), killTimeout: 25 * 86_400_000 }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /killTimeout \(kill_timeout\) should be at most 24d/ })
  await assert.rejects(client.request('start', { specs: Array.from({ length: 1025 }, (_, i) => ({ ...specFor(h), name: `a${i}` })) }), { code: 'XPM_ERR_CONFIG_INVALID', message: /at most 1024 app specs/ })
  assert.ok(Date.now() - started < 5000)
  assert.deepEqual(await client.request('list'), [])
  assert.ok(isAlive(h.daemonPid()))
})

test('a cron_restart that does not parse, sent over the socket, is refused and every later command works', async (t) => {
  const h = createHome(t, { inProcess: true })
  const client = await daemon(t, h)
  for (const cronRestart of ['every day', '61 * * * *', '0 0 30 2 *', 42]) {
    await assert.rejects(client.request('start', { specs: [{ ...specFor(h), cronRestart }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /cronRestart should be null or a cron expression/ })
  }
  for (const killSignal of ['SIGNOPE', 'sigterm', 9]) {
    await assert.rejects(client.request('start', { specs: [{ ...specFor(h), killSignal }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /killSignal/ })
  }
  await assert.rejects(client.request('start', { specs: [{ ...specFor(h), env: { A: 1 } }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /env should be an object of strings/ })
  await assert.rejects(client.request('start', { specs: [{ ...specFor(h), args: ['ok', 3] }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /args should be an array of strings/ })
  await assert.rejects(client.request('start', { specs: [{ ...specFor(h), args: ['a\0b'] }] }), { code: 'XPM_ERR_CONFIG_INVALID' })
  assert.deepEqual(await client.request('list'), [])
  const [result] = await client.request('start', { specs: [specFor(h, { cron_restart: '0 3 * * *' })] }, { timeout: 20000 })
  assert.equal(result.action, 'started', JSON.stringify(result))
  const [proc] = await client.request('list')
  assert.equal(proc.status, 'online')
  assert.equal((await h.run(['stop', 'idle'])).code, 0)
  assert.equal((await h.run(['delete', 'idle'])).code, 0)
})

test('wrong parameter types on any method get XPM_ERR_BAD_ARGUMENT or XPM_ERR_CONFIG_INVALID, never XPM_ERR_INTERNAL', async (t) => {
  const h = createHome(t, { inProcess: true })
  const client = await daemon(t, h)
  await client.request('start', { specs: [specFor(h)] }, { timeout: 20000 })
  const cases = [
    ['start', { specs: 'x' }, 'XPM_ERR_CONFIG_INVALID'],
    ['start', { specs: [] }, 'XPM_ERR_CONFIG_INVALID'],
    ['start', { specs: [null] }, 'XPM_ERR_CONFIG_INVALID'],
    ['start', { specs: [specFor(h, { name: 'other' })], force: 'yes' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['reload', { target: 'idle', specs: 5 }, 'XPM_ERR_CONFIG_INVALID'],
    ['reload', { target: [{}] }, 'XPM_ERR_BAD_ARGUMENT'],
    ['stop', { target: { name: 'idle' } }, 'XPM_ERR_BAD_ARGUMENT'],
    ['stop', {}, 'XPM_ERR_BAD_ARGUMENT'],
    ['restart', { target: null }, 'XPM_ERR_BAD_ARGUMENT'],
    ['delete', { target: true }, 'XPM_ERR_BAD_ARGUMENT'],
    ['startTarget', { target: -1 }, 'XPM_ERR_BAD_ARGUMENT'],
    ['show', { target: 1.5 }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', lines: -1, follow: false }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', lines: '10', follow: false }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', lines: 1e12, follow: false }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', streams: 5, follow: false }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', streams: ['out', 'nope'], follow: false }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', streams: 'out', follow: false }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: 'idle', follow: 'no' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['logs', { target: {} }, 'XPM_ERR_BAD_ARGUMENT'],
    ['subscribe', { topics: 'processes' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['subscribe', { topics: [1] }, 'XPM_ERR_BAD_ARGUMENT'],
    ['flush', { target: [] }, 'XPM_ERR_BAD_ARGUMENT'],
    ['scale', { name: 5, change: '+1' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['scale', { name: 'idle', change: {} }, 'XPM_ERR_BAD_ARGUMENT'],
    ['scale', { name: 'idle', change: '1e9' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['scale', { name: 'idle', change: '+100000' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['sendSignal', { target: 'idle', signal: 15 }, 'XPM_ERR_BAD_ARGUMENT'],
    ['sendSignal', { target: 'idle', signal: 'SIGNOPE' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['sendSignal', { target: 'idle' }, 'XPM_ERR_BAD_ARGUMENT'],
    ['reset', { target: {} }, 'XPM_ERR_BAD_ARGUMENT'],
    ['save', { force: 'yes' }, 'XPM_ERR_BAD_ARGUMENT']
  ]
  for (const [method, params, code] of cases) {
    await assert.rejects(client.request(method, params), (err) => {
      assert.equal(err.code, code, `${method} ${JSON.stringify(params)}: ${err.code} ${err.message}`)
      return true
    })
  }
  // params that are not an object at all
  const raw = await rawExchange(homePaths(h.home).socket, '{"id":1,"method":"list","params":[]}\n{"id":2,"method":"stop","params":"idle"}\n', 2)
  assert.equal(raw.get(1).error.code, 'XPM_ERR_BAD_ARGUMENT')
  assert.equal(raw.get(2).error.code, 'XPM_ERR_BAD_ARGUMENT')
  const [proc] = await client.request('list')
  assert.equal(proc.status, 'online', 'nothing above touched the app')
  assert.equal((await client.request('ping')).pong, true)
})

// Sends raw lines and resolves with the first `count` replies by id.
function rawExchange (sock, text, count) {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(sock)
    const replies = new Map()
    let buf = ''
    s.on('error', reject)
    s.on('data', (d) => {
      buf += d
      let nl
      while ((nl = buf.indexOf('\n')) !== -1) {
        const msg = JSON.parse(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
        if (msg.id !== undefined) replies.set(msg.id, msg)
      }
      if (replies.size >= count) {
        s.destroy()
        resolve(replies)
      }
    })
    s.on('connect', () => s.write(text))
  })
}

test('app names with control characters or a leading "-" are refused by the CLI and the daemon', async (t) => {
  const h = createHome(t, { inProcess: true })
  const client = await daemon(t, h)
  for (const name of ['-rf', 'bell\u0007', 'two\nlines', 'x'.repeat(129)]) {
    const res = await h.run(['start', fixture('idle.js'), `--name=${name}`])
    assert.equal(res.code, 2, JSON.stringify(name))
    assert.match(res.stderr, /Expected `--name` to be a name of at most 128 bytes .*\[XPM_ERR_CONFIG_INVALID\]/)
    await assert.rejects(client.request('start', { specs: [{ ...specFor(h), name }] }), { code: 'XPM_ERR_CONFIG_INVALID', message: /name should be a name of at most 128 bytes/ })
  }
  assert.deepEqual(await client.request('list'), [])
})

test('a missing or non-directory cwd is XPM_ERR_CWD_INVALID at once, in fork and cluster mode, CLI and socket', async (t) => {
  const h = createHome(t, { inProcess: true })
  const client = await daemon(t, h)
  const cli = await h.run(['start', fixture('idle.js'), '--cwd', '/nonexistent/xpm-cwd'])
  assert.equal(cli.code, 2)
  assert.match(cli.stderr, /cwd \/nonexistent\/xpm-cwd in app "idle" does not exist \[XPM_ERR_CWD_INVALID\]/)
  const started = Date.now()
  for (const execMode of ['fork', 'cluster']) {
    await assert.rejects(client.request('start', { specs: [{ ...specFor(h), execMode, cwd: '/nonexistent/xpm-cwd' }] }),
      { code: 'XPM_ERR_CWD_INVALID', message: 'cwd /nonexistent/xpm-cwd of app "idle" does not exist' })
    await assert.rejects(client.request('start', { specs: [{ ...specFor(h), execMode, cwd: fixture('idle.js') }] }),
      { code: 'XPM_ERR_CWD_INVALID', message: /is not a directory/ })
  }
  await assert.rejects(client.request('start', { specs: [{ ...specFor(h), script: '/nonexistent/app.js' }] }), { code: 'XPM_ERR_SCRIPT_NOT_FOUND' })
  assert.ok(Date.now() - started < 5000, 'answered at once, not after a start timeout')
  assert.deepEqual(await client.request('list'), [])
})

test('a client that sends requests and never reads: the daemon\'s memory stays bounded and others are served', async (t) => {
  const h = createHome(t, { inProcess: true })
  const client = await daemon(t, h)
  await client.request('start', { specs: [specFor(h, { env: { PAD: 'p'.repeat(4 * KiB) } })] }, { timeout: 20000 })
  const pid = h.daemonPid()
  const before = rssOf(pid)

  const slow = net.createConnection(homePaths(h.home).socket)
  slow.on('error', () => {})
  t.after(() => slow.destroy())
  await new Promise((resolve) => slow.on('connect', resolve))
  slow.pause() // never reads
  let batch = ''
  for (let i = 0; i < 2000; i++) batch += encode({ id: i, method: i % 2 ? 'list' : 'show', params: { target: 'all' } })
  // ~2 GB of replies if every request were answered into memory; stop when the daemon stops reading
  let sent = 0
  while (sent < 400_000 && slow.writableLength < 16 * MiB) {
    slow.write(batch)
    sent += 2000
    if (slow.writableLength > 4 * MiB) await new Promise((resolve) => setImmediate(resolve))
  }
  t.diagnostic(`sent ${sent} requests, ${(slow.writableLength / MiB).toFixed(1)} MiB not taken by the daemon`)

  // the daemon keeps answering others; its memory stays where it was (within a margin)
  let peak = 0
  for (let i = 0; i < 40; i++) {
    const other = await connectOnce(homePaths(h.home).socket)
    assert.equal((await other.request('ping', {}, { timeout: 5000 })).pong, true)
    other.close()
    peak = Math.max(peak, rssOf(pid))
  }
  t.diagnostic(`daemon RSS ${(before / MiB).toFixed(1)} MiB before, peak ${(peak / MiB).toFixed(1)} MiB while the client does not read`)
  assert.ok(peak - before < 96 * MiB, `daemon RSS grew by ${((peak - before) / MiB).toFixed(1)} MiB`)
  assert.ok(slow.writableLength > 0, 'the daemon stopped reading the requests it cannot answer')
  slow.destroy()
  assert.equal((await client.request('ping')).pong, true)
})

test('xpm logs over 100 lines of 100 KiB answers promptly and completely', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('long-lines.js'), '--name', 'long', '--log-max-size', '100M'], { env: { LINES: '100', LINE_BYTES: String(100 * KiB) } })
  assert.equal(res.code, 0, res.stderr)
  const outFile = path.join(h.home, 'logs', 'long-out.log')
  await waitFor(() => fs.statSync(outFile).size >= 100 * (100 * KiB + 1), { timeout: 20000, message: 'the 100 lines in the log file' })
  const started = Date.now()
  // the log sink cuts lines over 64 KiB into pieces: 200 lines of output hold the 100 lines
  const logs = await h.run(['logs', 'long', '--lines', '200', '--nostream', '--raw'], { timeout: 20000 })
  const took = Date.now() - started
  assert.equal(logs.code, 0, logs.stderr)
  assert.ok(took < 10000, `took ${took} ms`)
  const text = logs.stdout.split('\n').join('')
  const expected = Array.from({ length: 100 }, (_, i) => `${i}:` + 'x'.repeat(100 * KiB - `${i}:`.length)).join('')
  assert.equal(text.length, expected.length)
  assert.ok(text === expected, 'every byte of the 100 lines, in order')
})

test('xpm show all with many processes and large environments answers promptly and completely', async (t) => {
  const h = createHome(t, { inProcess: true })
  const big = 'b'.repeat(100 * KiB)
  const res = await h.run(['start', fixture('heartbeat.sh'), '--name', 'beat', '-i', '12', '--kill-timeout', '1s'], { env: { BIG: big } })
  assert.equal(res.code, 0, res.stderr)
  const client = await connectOnce(homePaths(h.home).socket)
  t.after(() => client.close())
  const started = Date.now()
  const shown = await client.request('show', { target: 'all' })
  assert.equal(shown.length, 12)
  assert.ok(shown.every((p) => p.spec.env.BIG === big))
  assert.ok(JSON.stringify(shown).length > 1.1 * MiB, 'over the old 1 MiB line limit')
  const cli = await h.run(['show', 'all'], { timeout: 20000 })
  assert.equal(cli.code, 0, cli.stderr)
  const json = await h.run(['show', 'all', '--json'], { timeout: 20000 })
  assert.equal(json.code, 0, json.stderr)
  assert.equal(JSON.parse(json.stdout).length, 12)
  assert.ok(Date.now() - started < 10000)
  for (const p of await h.jlist()) h.track(p.pid)
})
