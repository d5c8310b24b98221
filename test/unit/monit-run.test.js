'use strict'

// runMonit end to end against a fake client and in-memory terminal streams: key handling,
// exit codes, the daemon going away, and that nothing is left listening afterwards.
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { PassThrough } = require('node:stream')
const { runMonit, GONE_MESSAGE } = require('../../lib/cli/monit')
const { MonitModel, MONIT_FIELDS } = require('../../lib/cli/monit/model')
const { XpmError } = require('../../lib/shared/errors')
const { Client } = require('../../lib/cli/client')
const { encode, LineDecoder } = require('../../lib/shared/protocol')
const { waitFor } = require('../helpers/wait')
const { tempDir } = require('../helpers/tmp')

function proc (id) {
  return { id, name: `svc-${id}`, instance: 0, pid: 900 + id, status: 'online', restarts: 0, uptime: 5000, cpu: 3.5, memory: 30 * 1024 * 1024, metrics: { heapUsed: 1e7, heapTotal: 2e7, elP50: 1, elP95: 2, elP99: 3, elMax: 4, elu: 0.1 } }
}

function fakeClient (reply = { processes: [proc(0), proc(1)], history: {} }) {
  const client = new EventEmitter()
  client.requests = []
  client.request = async (method, params) => {
    client.requests.push({ method, params })
    if (reply instanceof Error) throw reply
    return reply
  }
  client.push = (event, data) => client.emit('event', { event, data })
  return client
}

function terminal () {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  Object.assign(stdout, { isTTY: true, columns: 100, rows: 30 })
  let screen = ''
  stdout.on('data', (chunk) => { screen += chunk })
  const stderr = new PassThrough()
  let errText = ''
  stderr.on('data', (chunk) => { errText += chunk })
  return { stdin, stdout, stderr, screen: () => screen, errText: () => errText }
}

test('subscribes to processes and logs, draws the list, moves with j/k and quits with q (exit 0)', async () => {
  const client = fakeClient()
  const term = terminal()
  const model = new MonitModel()
  const run = runMonit({ client, ...term, model })
  await waitFor(() => term.screen().includes('svc-1'))
  // issue 27: none in full at first, then the rows the first paint showed
  // and the recent lines of the selected process (issue 34), each process once
  await waitFor(() => client.requests.length === 3)
  assert.deepEqual(client.requests, [
    { method: 'subscribe', params: { topics: ['processes', 'logs'], fields: MONIT_FIELDS, ids: [], changes: true } },
    { method: 'watch', params: { ids: [0, 1] } },
    { method: 'logs', params: { target: '0', lines: 200, follow: false } }
  ])
  term.stdin.write('j')
  await waitFor(() => model.selectedId === 1)
  await waitFor(() => client.requests.some((r) => r.method === 'logs' && r.params.target === '1'))
  term.stdin.write('k')
  await waitFor(() => model.selectedId === 0)
  client.push('processes', [proc(0), proc(1), proc(2)])
  await waitFor(() => term.screen().includes('svc-2'))
  assert.equal(client.requests.filter((r) => r.method === 'logs').length, 2, 'a process selected again is not asked again')
  term.stdin.write('q')
  assert.equal(await run, 0)
  assert.equal(client.listenerCount('event'), 0)
  assert.equal(client.listenerCount('close'), 0)
  assert.equal(process.listenerCount('SIGTERM'), 0)
})

for (const [key, bytes] of [['Ctrl-C', '\x03'], ['Esc', '\x1b']]) {
  test(`${key} quits with exit 0`, async () => {
    const term = terminal()
    const run = runMonit({ client: fakeClient(), ...term })
    await waitFor(() => term.screen().includes('svc-0'))
    term.stdin.write(bytes)
    assert.equal(await run, 0)
  })
}

test('SIGTERM from the program\'s signals restores the terminal and exits 143; SIGHUP 129; nothing is left listening', async () => {
  for (const [signal, code] of [['SIGTERM', 143], ['SIGHUP', 129]]) {
    const term = terminal()
    const signals = new EventEmitter()
    const run = runMonit({ client: fakeClient(), ...term, signals })
    await waitFor(() => term.screen().includes('svc-0'))
    signals.emit(signal)
    assert.equal(await run, code)
    assert.equal(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGHUP'), 0)
  }
})

test('a terminal resize repaints at the new size, down to a tiny window, without crashing', async () => {
  const term = terminal()
  const run = runMonit({ client: fakeClient(), ...term })
  await waitFor(() => term.screen().includes('svc-0'))
  for (const [columns, rows] of [[40, 8], [12, 3], [160, 50]]) {
    const before = term.screen().length
    Object.assign(term.stdout, { columns, rows })
    term.stdout.emit('resize')
    await waitFor(() => term.screen().length > before)
  }
  await waitFor(() => term.screen().includes('┘'))
  term.stdin.write('q')
  assert.equal(await run, 0)
})

test('the daemon going away restores the terminal, says so and exits 1', async () => {
  const client = fakeClient()
  const term = terminal()
  const run = runMonit({ client, ...term })
  await waitFor(() => term.screen().includes('svc-0'))
  client.emit('close')
  assert.equal(await run, 1)
  assert.equal(term.errText(), GONE_MESSAGE + '\n')
})

test('a failed subscribe rejects with the client error and never takes over the terminal', async () => {
  const err = new XpmError('XPM_ERR_TIMEOUT', 'no answer')
  const term = terminal()
  await assert.rejects(runMonit({ client: fakeClient(err), ...term }), err)
  assert.equal(term.screen(), '')
})

test('pushes that arrive with the subscribe reply are not lost', async () => {
  const client = fakeClient()
  const term = terminal()
  const model = new MonitModel()
  const original = client.request
  client.request = async (...args) => {
    const reply = await original(...args)
    client.push('processes', [proc(5)])
    client.push('log', { id: 5, app: 'svc-5', instance: 0, stream: 'out', time: Date.now(), line: 'hello-from-five' })
    return reply
  }
  const run = runMonit({ client, ...term, model })
  await waitFor(() => term.screen().includes('hello-from-five'))
  assert.deepEqual(model.processes.map((p) => p.id), [5])
  term.stdin.write('q')
  assert.equal(await run, 0)
})

test('a burst of log lines between pushes is painted once, not once per line', async () => {
  const client = fakeClient()
  const term = terminal()
  const run = runMonit({ client, ...term })
  await waitFor(() => term.screen().includes('svc-0'))
  let paints = 0
  term.stdout.on('data', () => paints++)
  for (let i = 0; i < 50; i++) client.push('log', { id: 0, stream: 'out', time: Date.now(), line: `line-${i}` })
  client.push('log', { id: 1, stream: 'out', time: Date.now(), line: 'not-selected' })
  await waitFor(() => term.screen().includes('line-49'), { timeout: 3000 })
  assert.equal(paints, 1)
  assert.ok(!term.screen().includes('not-selected'))
  term.stdin.write('q')
  assert.equal(await run, 0)
})

test('with the real client over a socket: subscribe, a push, then the daemon closing gives exit 1', async (t) => {
  const dir = tempDir('xpm-monit-')
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const sockPath = path.join(dir, 'daemon.sock')
  const server = net.createServer((conn) => {
    const decoder = new LineDecoder({
      onMessage: (msg) => {
        if (msg.method === 'watch') {
          // [0, 3], or [0] first when the push comes after the first paint
          const history = Object.fromEntries(msg.params.ids.map((id) => [id, id === 0 ? [{ at: 1, cpu: 1 }, { at: 2, cpu: 2 }] : []]))
          conn.write(encode({ id: msg.id, result: { history } }))
          return
        }
        if (msg.method === 'logs') {
          // what process 0 wrote before monit started; the second line also arrived live
          const lines = [{ app: 'svc-0', id: null, stream: 'out', time: null, line: 'from-the-file' }, { app: 'svc-0', id: 0, stream: 'err', time: 5, line: 'before-monit' }]
          conn.write(encode({ id: msg.id, result: { lines } }))
          return
        }
        assert.equal(msg.method, 'subscribe')
        conn.write(encode({ id: msg.id, result: { processes: [proc(0)], history: { 0: [{ at: 1, cpu: 1, memory: 1, heapUsed: 1, heapTotal: 2, elP95: 1, elP99: 1, elu: 0 }] } } }))
        conn.write(encode({ event: 'processes', data: [proc(0), proc(3)] }))
        conn.write(encode({ event: 'log', data: { app: 'svc-0', id: 0, instance: 0, stream: 'err', time: 5, line: 'before-monit' } }))
      },
      onError: () => {}
    })
    conn.on('data', (chunk) => decoder.push(chunk))
    server.conn = conn
  })
  await new Promise((resolve) => server.listen(sockPath, resolve))
  t.after(() => server.close())
  const socket = net.createConnection(sockPath)
  await new Promise((resolve) => socket.once('connect', resolve))
  const client = new Client(socket)
  const term = terminal()
  const model = new MonitModel()
  const run = runMonit({ client, ...term, model })
  await waitFor(() => term.screen().includes('svc-3'))
  await waitFor(() => model.historyOf(0).length === 2) // the watch reply's history
  assert.deepEqual(model.seriesOf(0, 'cpu', 10), [1, 2])
  // issue 34: the log pane of the selected process shows the lines it wrote before, once each
  await waitFor(() => term.screen().includes('from-the-file'))
  assert.deepEqual(model.logsOf(0).map((l) => l.line), ['from-the-file', 'before-monit'])
  assert.ok(!term.screen().includes('no output yet'))
  server.conn.destroy()
  assert.equal(await run, 1)
  assert.match(term.errText(), /xpm daemon went away/)
})
