'use strict'

// Property-based, against a real daemon on its real socket in a temporary XPM_HOME: batches of
// random frames (random bytes, random JSON, requests with methods of the real method table and
// random params of random types). The daemon never dies, never answers XPM_ERR_INTERNAL, answers
// every request, and keeps serving other clients (a ping on a second connection after each
// batch). `kill` is left out; specs only ever run a harmless script with short timeouts and log
// files inside XPM_HOME. Seeded and time-boxed (test/helpers/fuzz.js).

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { fc, fuzzOptions } = require('../helpers/fuzz')
const { createHome, fixture, isAlive, ROOT } = require('../helpers/xpm')
const { connectOnce } = require('../../lib/cli/client')
const { homePaths } = require('../../lib/shared/paths')
const { encode, LineDecoder, MAX_REPLY_BYTES } = require('../../lib/shared/protocol')
const { normalizeApp } = require('../../lib/shared/config')
const { createMethods } = require('../../daemon/methods')

// The method names: the table in daemon/methods.js and the one documented in docs/protocol.md
// (the persistence methods join the table at start-up).
function methodNames () {
  const table = Object.keys(createMethods({ supervisor: {}, logSink: null, metrics: null, shutdown () {}, version: 'x' }))
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'protocol.md'), 'utf8')
  const section = doc.slice(doc.indexOf('## Methods'), doc.indexOf('## ', doc.indexOf('## Methods') + 3))
  const documented = section.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1].matchAll(/`(\w+)`/g)].map((m) => m[1]))
  for (const name of table) assert.ok(documented.includes(name), `${name} is in docs/protocol.md`)
  return [...new Set([...table, ...documented])].filter((name) => name !== 'kill')
}

const junk = fc.oneof(
  fc.anything({ maxDepth: 2, maxKeys: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e21, '', 'all', 'idle', '0', '-1', [], {}, ['out'], ['logs'], 'SIGTERM')
)
const smallMs = fc.oneof(fc.integer({ min: 0, max: 1500 }), fc.constantFrom(-1, 1.5, 25 * 86_400_000, '5s', null))

function specArbitrary (home) {
  const base = normalizeApp({ name: 'f0', script: fixture('idle.js'), kill_timeout: '1s', listen_timeout: '2s' }, { env: { PATH: process.env.PATH, XPM_HOME: home }, cpus: 2 })
  const logPath = fc.oneof(fc.constant(null), fc.stringMatching(/^[a-z]{1,8}\.log$/).map((n) => path.join(home, 'fz', n)), fc.constantFrom('relative.log', '', 5))
  // field → values: valid ones kept harmless (idle.js, short timeouts, files under XPM_HOME),
  // and values the daemon must refuse
  const fields = {
    name: fc.oneof(fc.constantFrom('f0', 'f1', 'f2', 'idle'), fc.constantFrom('-x', 'a/b', 'all', '7', 'a\nb', '', 'x'.repeat(200)), junk),
    instances: fc.oneof(fc.constantFrom(1, 2), fc.constantFrom(0, -1, 1025, 1e9, 1.5, '2')),
    execMode: fc.constantFrom('fork', 'cluster', 'cluster_mode', 'x'),
    interpreter: fc.constantFrom('node', '', 5),
    cwd: fc.constantFrom(path.dirname(fixture('idle.js')), home, '/nonexistent/xpm-fz', fixture('idle.js'), 'relative', ''),
    script: fc.constantFrom(fixture('idle.js'), '/nonexistent/xpm.js', 'idle.js', ''),
    args: fc.oneof(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), junk),
    nodeArgs: fc.oneof(fc.constantFrom([], ['--no-warnings'], ['--bogus-flag']), junk),
    env: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ unit: 'binary', maxLength: 5 }), { maxKeys: 3 }), junk),
    autorestart: fc.oneof(fc.boolean(), junk),
    maxRestarts: fc.oneof(fc.nat({ max: 5 }), junk),
    restartWindow: smallMs,
    minUptime: smallMs,
    restartDelay: smallMs,
    expBackoffRestartDelay: smallMs,
    maxBackoffDelay: smallMs,
    killTimeout: smallMs,
    listenTimeout: smallMs,
    watchDelay: smallMs,
    stopExitCodes: fc.oneof(fc.array(fc.integer({ min: -1, max: 256 }), { maxLength: 3 }), junk),
    killSignal: fc.constantFrom('SIGINT', 'SIGTERM', 'SIGNOPE', 'sigterm', 15),
    waitReady: fc.oneof(fc.boolean(), junk),
    shutdownWithMessage: fc.oneof(fc.boolean(), junk),
    metrics: fc.oneof(fc.boolean(), junk),
    watch: fc.constantFrom(false, true, ['relative'], [], 'x'),
    ignoreWatch: fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }), junk),
    maxMemoryRestart: fc.constantFrom(null, 512 * 1024 * 1024, 10, 0, 'x'),
    cronRestart: fc.constantFrom(null, '0 3 * * *', 'every day', '0 0 30 2 *', '61 * * * *', 7, ''),
    logs: fc.oneof(junk, fc.record({
      outFile: logPath,
      errorFile: logPath,
      logFile: logPath,
      perInstance: fc.oneof(fc.boolean(), junk),
      time: fc.boolean(),
      dateFormat: fc.constantFrom(null, 'YYYY', '', 5),
      json: fc.boolean(),
      rotate: fc.oneof(junk, fc.record({
        size: fc.constantFrom(1024 * 1024, 1, 0, 1e15, 'x'),
        maxFiles: fc.constantFrom(0, 3, 1e15, -1),
        interval: fc.constantFrom(null, 60000, 0, 1e12, 'x'),
        compress: fc.oneof(fc.boolean(), junk)
      }))
    }))
  }
  return fc.array(fc.tuple(fc.constantFrom(...Object.keys(fields)), fc.boolean()), { maxLength: 4 })
    .chain((picks) => fc.tuple(fc.constant(picks), ...picks.map(([field]) => fields[field])))
    .map(([picks, ...values]) => {
      const spec = structuredClone(base)
      // the first field picked is sometimes left out altogether (a spec missing a field)
      picks.forEach(([field, drop], i) => {
        if (drop && i === 0) delete spec[field]
        else spec[field] = values[i]
      })
      // a watched cwd is only ever the fixtures folder; never the whole home or '/'
      if (spec.watch === true) spec.watch = false
      return spec
    })
}

function paramsArbitrary (home) {
  const target = fc.oneof(fc.constantFrom('idle', 'all', 'f0', 'f1', '0', '1', 'ghost', 0, 3), junk)
  const specs = fc.oneof({ weight: 4, arbitrary: fc.array(specArbitrary(home), { minLength: 1, maxLength: 2 }) }, { weight: 1, arbitrary: junk })
  const known = fc.record({
    target,
    specs,
    force: fc.oneof(fc.boolean(), junk),
    lines: fc.oneof(fc.nat({ max: 50 }), fc.constantFrom(-1, 1e12, 1.5, '10')),
    streams: fc.oneof(fc.constantFrom(['out'], ['err'], ['out', 'err']), junk),
    follow: fc.oneof(fc.boolean(), junk),
    topics: fc.oneof(fc.constantFrom(['processes'], ['logs'], ['processes', 'logs']), junk),
    fields: fc.oneof(fc.constantFrom(['name', 'status'], ['pid']), junk),
    name: fc.oneof(fc.constantFrom('idle', 'f0', 'ghost'), junk),
    change: fc.constantFrom('1', '2', '+1', '-1', '0', 'x', '1e9', '+100000', 2, {}, null),
    // signals with no lasting effect on the harmless script (SIGUSR1 would open node's inspector)
    signal: fc.constantFrom('SIGUSR2', 'SIGHUP', 'SIGTERM', 'SIGINT', 'SIGCONT', 'SIGWINCH', 'usr2', 'SIGNOPE', 'SIGKILL', 9, '')
  }, { requiredKeys: [] })
  return fc.oneof({ weight: 6, arbitrary: known }, { weight: 1, arbitrary: junk }, { weight: 1, arbitrary: fc.constant(undefined) })
}

function frameArbitrary (home, names) {
  const request = fc.record({
    method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 8 }), junk) }),
    params: paramsArbitrary(home)
  })
  return fc.oneof(
    { weight: 8, arbitrary: request.map((r) => ({ kind: 'request', ...r })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'bytes', bytes })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ({ kind: 'json', value })) }
  )
}

// One batch on a fresh connection: every frame written at once, then every request's reply.
async function sendBatch (sock, frames, { timeout = 30000 } = {}) {
  const socket = net.createConnection(sock)
  const replies = new Map()
  const pending = new Set()
  let wire = Buffer.alloc(0)
  frames.forEach((frame, i) => {
    let chunk
    if (frame.kind === 'request') {
      const message = { id: i + 1, method: frame.method }
      if (frame.params !== undefined) message.params = frame.params
      chunk = Buffer.from(encode(message))
      pending.add(i + 1)
    } else if (frame.kind === 'bytes') {
      // a stray newline byte could end a request line early; random bytes stay on their own line
      chunk = Buffer.concat([Buffer.from(frame.bytes.filter((b) => b !== 10)), Buffer.from('\n')])
    } else {
      chunk = Buffer.from(JSON.stringify(frame.value) + '\n')
    }
    wire = Buffer.concat([wire, chunk])
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no reply within ${timeout} ms to ${[...pending].map((id) => `${frames[id - 1].method} ${JSON.stringify(frames[id - 1].params)?.slice(0, 200)}`).join('; ')}`))
    }, timeout)
    const decoder = new LineDecoder({
      maxLineBytes: MAX_REPLY_BYTES,
      onMessage: (msg) => {
        if (msg.id === undefined) return
        if (msg.error?.code === 'XPM_ERR_INTERNAL' || (msg.id !== null && !pending.has(msg.id))) {
          const frame = frames[msg.id - 1]
          clearTimeout(timer)
          socket.destroy()
          reject(new Error(`${frame ? `${frame.method} ${JSON.stringify(frame.params)}` : 'a frame'} was answered ${JSON.stringify(msg).slice(0, 500)}`))
          return
        }
        replies.set(msg.id, msg)
        pending.delete(msg.id)
        if (pending.size === 0) {
          clearTimeout(timer)
          socket.destroy()
          resolve(replies)
        }
      },
      onError: (err) => { clearTimeout(timer); socket.destroy(); reject(new Error(`bad line from the daemon: ${err.message}`)) }
    })
    socket.on('data', (chunk) => decoder.push(chunk))
    socket.on('error', (err) => { clearTimeout(timer); reject(err) })
    socket.on('close', () => { if (pending.size) { clearTimeout(timer); reject(new Error(`the daemon closed the connection with ${pending.size} request(s) unanswered`)) } })
    socket.on('connect', () => {
      socket.write(wire)
      if (pending.size === 0) setImmediate(() => { clearTimeout(timer); socket.destroy(); resolve(replies) })
    })
  })
}

test('fuzz: random frames and params on the socket never kill the daemon, never answer XPM_ERR_INTERNAL, and others are served', async (t) => {
  const h = createHome(t)
  assert.equal((await h.run(['ping'])).code, 0)
  const sock = homePaths(h.home).socket
  const pid = h.daemonPid()
  fs.mkdirSync(path.join(h.home, 'fz'))
  const start = await h.run(['start', fixture('idle.js'), '--name', 'idle', '--kill-timeout', '1s'])
  assert.equal(start.code, 0, start.stderr)
  const names = methodNames()
  t.diagnostic(`methods: ${names.join(', ')}`)

  let batches = 0
  let requests = 0
  const codes = new Map()
  await fc.assert(fc.asyncProperty(fc.array(frameArbitrary(h.home, names), { minLength: 1, maxLength: 12 }), async (frames) => {
    const replies = await sendBatch(sock, frames)
    batches++
    for (const reply of replies.values()) {
      requests++
      const method = frames[reply.id - 1]?.method
      const code = `${names.includes(method) ? method : '?'}:${reply.error?.code ?? 'ok'}`
      codes.set(code, (codes.get(code) ?? 0) + 1)
    }
    assert.ok(isAlive(pid), 'the daemon is alive')
    const other = await connectOnce(sock)
    try {
      const pong = await other.request('ping', {}, { timeout: 5000 })
      assert.equal(pong.pid, pid)
    } finally {
      other.close()
    }
  }), fuzzOptions(t, { timeMs: 6000 }))
  t.diagnostic(`${batches} batches, ${requests} requests: ${[...codes].sort().map(([c, n]) => `${c} ${n}`).join(', ')}`)
  assert.ok(batches > 0)
  // whatever the fuzz started is still managed: list it so cleanup stops every process
  for (const p of await h.jlist()) h.track(p.pid)
  assert.ok(isAlive(pid))
})
