'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { PassThrough, Writable } = require('node:stream')
const { setTimeout: sleep } = require('node:timers/promises')
const { createLogSink } = require('../../daemon/logs')
const { waitFor } = require('../helpers/wait')
const { tempDir } = require('../helpers/tmp')

const tmp = () => tempDir('xpm-logs-')
const spec = (name, logs = {}) => ({ name, cwd: '/', logs })

// Feeds text through a pipe-like stream in uneven chunks, honouring back-pressure.
async function feed (stream, text, { chunk = 4099 } = {}) {
  for (let i = 0; i < text.length; i += chunk) {
    if (!stream.write(text.slice(i, i + chunk))) await new Promise((resolve) => stream.once('drain', resolve))
  }
}

function attach (sink, s, id, instance = id) {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  sink.attach({ spec: s, proc: { id, name: s.name, instance, pid: 1000 + id }, stdout, stderr })
  return { stdout, stderr }
}

const numbered = (tag, from, to) => { let t = ''; for (let i = from; i < to; i++) t += `${tag} ${i}\n`; return t }

function assertSequences (lines, tags, count) {
  const next = Object.fromEntries(tags.map((t) => [t, 0]))
  for (const line of lines) {
    const [tag, n] = line.split(' ')
    assert.equal(Number(n), next[tag], `line "${line}" out of sequence`)
    next[tag]++
  }
  for (const t of tags) assert.equal(next[t], count, `writer ${t}`)
}

test('two writers x 100,000 numbered lines in bursts land exactly once', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const s = spec('burst')
  const a = attach(sink, s, 0)
  const b = attach(sink, s, 1)
  await Promise.all([feed(a.stdout, numbered('a', 0, 100000)), feed(b.stdout, numbered('b', 0, 100000), { chunk: 777 })])
  for (const stream of [a.stdout, b.stdout, a.stderr, b.stderr]) stream.end()
  await waitFor(() => sink.stats().sources === 0, { message: 'pipes end' })
  await sink.close()
  const lines = fs.readFileSync(path.join(dir, 'burst-out.log'), 'utf8').split('\n').slice(0, -1)
  assert.equal(lines.length, 200000)
  assertSequences(lines, ['a', 'b'], 100000)
  assert.equal(sink.stats().droppedLines, 0)
})

test('partial last line is flushed on end; invalid UTF-8 does not crash', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const { stdout, stderr } = attach(sink, spec('p'), 0)
  stdout.write('one\ntw')
  stdout.end('o')
  stderr.end(Buffer.from([0xff, 0x41, 0x0a]))
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  assert.equal(fs.readFileSync(path.join(dir, 'p-out.log'), 'utf8'), 'one\ntwo\n')
  assert.equal(fs.readFileSync(path.join(dir, 'p-error.log'), 'utf8'), '\ufffdA\n')
})

test('text without a newline is written once the stream is quiet (as PM2 writes it), not held until the next newline', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const { stdout, stderr } = attach(sink, spec('q'), 0)
  const file = path.join(dir, 'q-error.log')
  const read = () => { try { return fs.readFileSync(file, 'utf8') } catch { return '' } }
  stderr.write('errwrite')
  await waitFor(() => read() === 'errwrite\n', { message: 'the partial line written' })
  stderr.write('errwrite')
  stderr.write(' and more\n')
  stdout.end()
  stderr.end()
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  assert.equal(read(), 'errwrite\nerrwrite and more\n', 'a line completed before the pause stays whole')
})

test('a very long line without newline keeps memory bounded and is written in pieces', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir, maxLineBytes: 64 * 1024 })
  const { stdout, stderr } = attach(sink, spec('long'), 0)
  stderr.end()
  let maxBuffered = 0
  for (let i = 0; i < 64; i++) {
    stdout.write(Buffer.alloc(32 * 1024, 'x'))
    await sleep(0) // a turn of the loop for the sink to read, not a wait for a condition
    maxBuffered = Math.max(maxBuffered, sink.stats().bufferedBytes)
  }
  stdout.end('\n')
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  assert.ok(maxBuffered < 1024 * 1024, `buffered ${maxBuffered}`)
  const lines = fs.readFileSync(path.join(dir, 'long-out.log'), 'utf8').split('\n').slice(0, -1)
  assert.equal(lines.join('').length, 2 * 1024 * 1024)
  assert.ok(lines.every((l) => l.length <= 64 * 1024))
})

test('a flood past the rotation limit stays bounded and keeps an unbroken tail of lines', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const size = 64 * 1024
  const s = spec('flood', { rotate: { size, maxFiles: 3 } })
  const { stdout, stderr } = attach(sink, s, 0)
  stderr.end()
  await feed(stdout, numbered('f', 0, 200000), { chunk: 65536 })
  stdout.end()
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  const names = fs.readdirSync(dir).filter((n) => n.startsWith('flood-out.log')).sort()
  assert.deepEqual(names, ['flood-out.log', 'flood-out.log.1', 'flood-out.log.2', 'flood-out.log.3'])
  let total = 0
  for (const n of names) {
    const bytes = fs.statSync(path.join(dir, n)).size
    assert.ok(bytes <= size + 16 * 1024 + 64, `${n} is ${bytes} bytes`)
    total += bytes
  }
  assert.ok(total <= 4 * (size + 16 * 1024 + 64))
  // Oldest to newest, the kept lines are one contiguous run ending at the last line.
  const kept = ['flood-out.log.3', 'flood-out.log.2', 'flood-out.log.1', 'flood-out.log']
    .flatMap((n) => fs.readFileSync(path.join(dir, n), 'utf8').split('\n').slice(0, -1))
    .map((l) => Number(l.split(' ')[1]))
  const first = kept[0]
  kept.forEach((n, i) => assert.equal(n, first + i))
  assert.equal(kept[kept.length - 1], 199999)
  assert.ok(sink.stats().rotations >= 3)
})

test('timestamps on every line, with the configured format', async () => {
  const dir = tmp()
  const t = Date.UTC(2026, 0, 2, 3, 4, 5, 6)
  const sink = createLogSink({ logsDir: dir, now: () => t })
  const { stdout, stderr } = attach(sink, spec('ts', { time: true }), 0)
  stdout.end(numbered('o', 0, 50))
  stderr.end('e 0\ne 1')
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  for (const name of ['ts-out.log', 'ts-error.log']) {
    const lines = fs.readFileSync(path.join(dir, name), 'utf8').split('\n').slice(0, -1)
    assert.ok(lines.length > 0)
    for (const l of lines) assert.match(l, /^2026-01-02T03:04:05\.006Z: [oe] \d+$/)
  }
})

test('JSON mode writes one object per line with app, instance, id, pid, stream, time, message', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir, now: () => 0 })
  const s = spec('js', { json: true, logFile: path.join(dir, 'all.log') })
  const { stdout, stderr } = attach(sink, s, 7, 2)
  stdout.end('hello\n')
  stderr.end('oops\n')
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  const out = JSON.parse(fs.readFileSync(path.join(dir, 'js-out.log'), 'utf8'))
  assert.deepEqual(out, { app: 'js', instance: 2, id: 7, pid: 1007, stream: 'out', time: '1970-01-01T00:00:00.000Z', message: 'hello' })
  const all = fs.readFileSync(path.join(dir, 'all.log'), 'utf8').split('\n').slice(0, -1).map((l) => JSON.parse(l).message).sort()
  assert.deepEqual(all, ['hello', 'oops'])
})

test('paths: defaults, per instance with PM2\'s names (api-out-3.log, o-1.log), custom files and the combined file', () => {
  const sink = createLogSink({ logsDir: '/home/x/logs' })
  assert.deepEqual(sink.paths(spec('api')), { out: '/home/x/logs/api-out.log', err: '/home/x/logs/api-error.log', combined: null })
  assert.deepEqual(sink.paths(spec('api', { perInstance: true }), 3), { out: '/home/x/logs/api-out-3.log', err: '/home/x/logs/api-error-3.log', combined: null })
  const custom = { name: 'api', cwd: '/srv', logs: { outFile: 'o.log', errorFile: '/var/e.log', logFile: 'all.txt', perInstance: true } }
  assert.deepEqual(sink.paths(custom, 1), { out: '/srv/o-1.log', err: '/var/e-1.log', combined: '/srv/all.txt' }, 'PM2 splits only a name ending in .log')
  assert.deepEqual(sink.paths({ ...custom, logs: { ...custom.logs, perInstance: false } }, 1), { out: '/srv/o.log', err: '/var/e.log', combined: '/srv/all.txt' })
  assert.equal(sink.paths({ name: 'api', logs: { outFile: '/dev/null', perInstance: true } }, 2).out, '/dev/null')
})

test('per instance, PM2\'s rule: only a name ending in .log is split (-<digits>.log renumbered); logs.txt, app.LOG, /dev/null are one file', () => {
  const sink = createLogSink({ logsDir: '/home/x/logs' })
  const at = (file, instance) => sink.paths({ name: 'api', cwd: '/srv', logs: { outFile: file, errorFile: file, logFile: file, perInstance: true } }, instance)
  assert.deepEqual(at('logs.txt', 1), { out: '/srv/logs.txt', err: '/srv/logs.txt', combined: '/srv/logs.txt' })
  assert.equal(at('app.log', 1).combined, '/srv/app-1.log')
  assert.equal(at('app-7.log', 2).combined, '/srv/app-2.log', 'PM2 replaces a trailing -<digits>')
  assert.equal(at('app-7.txt', 2).combined, '/srv/app-7.txt')
  assert.equal(at('app.LOG', 2).combined, '/srv/app.LOG', 'case-sensitive, as PM2')
  assert.equal(at('/var/log/app', 3).combined, '/var/log/app')
  assert.equal(at('/dev/null', 3).out, '/dev/null')
})

test('back-pressure: a slow file stream pauses the source, memory stays bounded, nothing is lost', async () => {
  const written = []
  let maxBuffered = 0
  const createStream = () => new Writable({
    highWaterMark: 1024,
    write (chunk, enc, cb) {
      written.push(chunk.toString())
      setTimeout(cb, 1)
    }
  })
  const sink = createLogSink({ logsDir: tmp(), highWaterMark: 1024, createStream })
  const { stdout, stderr } = attach(sink, spec('slow'), 0)
  stderr.end()
  let paused = 0
  stdout.on('pause', () => paused++)
  const feeding = feed(stdout, numbered('s', 0, 20000), { chunk: 8192 })
  const timer = setInterval(() => { maxBuffered = Math.max(maxBuffered, sink.stats().bufferedBytes) }, 1)
  await feeding
  stdout.end()
  await waitFor(() => sink.stats().sources === 0, { timeout: 20000 })
  await sink.close()
  clearInterval(timer)
  assert.ok(paused > 0, 'source was paused')
  assert.ok(maxBuffered <= 1024 + 16 * 1024 + 64 * 1024, `buffered ${maxBuffered}`)
  assertSequences(written.join('').split('\n').slice(0, -1), ['s'], 20000)
})

test('a subscriber that throws does not break the sink or other subscribers', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const seen = []
  sink.subscribe({ names: null, ids: null, streams: new Set(['out']) }, () => { throw new Error('boom') })
  sink.subscribe({ names: new Set(['sub']), ids: null, streams: new Set(['out', 'err']) }, (l) => seen.push(l))
  const { stdout, stderr } = attach(sink, spec('sub'), 4)
  stdout.end('a\nb\n')
  stderr.end('c\n')
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  assert.deepEqual(seen.map((l) => [l.line, l.stream, l.id, l.app]).sort(), [['a', 'out', 4, 'sub'], ['b', 'out', 4, 'sub'], ['c', 'err', 4, 'sub']])
  assert.equal(fs.readFileSync(path.join(dir, 'sub-out.log'), 'utf8'), 'a\nb\n')
  assert.equal(sink.stats().subscriberErrors, 2)
})

test('maxFiles 0 keeps only the current file', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const { stdout, stderr } = attach(sink, spec('zero', { rotate: { size: 4096, maxFiles: 0 } }), 0)
  stderr.end()
  await feed(stdout, numbered('z', 0, 5000))
  stdout.end()
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  await waitFor(() => fs.readdirSync(dir).filter((n) => n.startsWith('zero-out')).length === 1, { message: 'rotated files removed' })
  assert.ok(fs.statSync(path.join(dir, 'zero-out.log')).size <= 4096 + 16 * 1024)
})
