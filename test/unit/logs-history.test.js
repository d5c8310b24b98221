'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { PassThrough } = require('node:stream')
const { createLogSink } = require('../../daemon/logs')
const { waitFor } = require('../helpers/wait')
const { tempDir } = require('../helpers/tmp')

const tmp = () => tempDir('xpm-logs-')
const spec = (name, logs = {}) => ({ name, cwd: '/', logs })
const numbered = (tag, from, to) => { let t = ''; for (let i = from; i < to; i++) t += `${tag} ${i}\n`; return t }
const seqOf = (l) => Number(l.line.split(' ').pop())
const ALL = { names: null, ids: null, streams: new Set(['out', 'err']) }

async function feed (stream, text, { chunk = 4099 } = {}) {
  for (let i = 0; i < text.length; i += chunk) {
    if (!stream.write(text.slice(i, i + chunk))) await new Promise((resolve) => stream.once('drain', resolve))
  }
}

function attach (sink, s, id = 0) {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  sink.attach({ spec: s, proc: { id, name: s.name, instance: id, pid: 1000 + id }, stdout, stderr })
  return { stdout, stderr, end: () => { stdout.end(); stderr.end() } }
}

test('tailAndSubscribe: exactly the last 20 lines, then a later line arrives live', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const p = attach(sink, spec('t'))
  p.stdout.write(numbered('t', 0, 100))
  await waitFor(() => sink.stats().lines === 100)
  const live = []
  let unsubscribe
  const history = await sink.tailAndSubscribe(ALL, 20, (l) => live.push(l), (u) => { unsubscribe = u })
  assert.deepEqual(history.map(seqOf), Array.from({ length: 20 }, (_, i) => 80 + i))
  assert.equal(history[0].app, 't')
  assert.equal(history[0].id, 0)
  p.stdout.write('t 100\n')
  await waitFor(() => live.length === 1, { message: 'live line' })
  assert.equal(live[0].line, 't 100')
  unsubscribe()
  p.stdout.write('t 101\n')
  await waitFor(() => sink.stats().lines === 102)
  assert.equal(live.length, 1)
  assert.deepEqual((await sink.tail(ALL, 2)).map(seqOf), [100, 101])
  p.end()
  await sink.close()
})

test('filters: by stream and by id', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const a = attach(sink, spec('f'), 0)
  const b = attach(sink, spec('f'), 1)
  a.stdout.write('a out\n')
  a.stderr.write('a err\n')
  b.stdout.write('b out\n')
  await waitFor(() => sink.stats().lines === 3)
  assert.deepEqual((await sink.tail({ names: null, ids: null, streams: new Set(['err']) }, 10)).map((l) => l.line), ['a err'])
  assert.deepEqual((await sink.tail({ names: null, ids: new Set([1]), streams: new Set(['out', 'err']) }, 10)).map((l) => l.line), ['b out'])
  assert.deepEqual(await sink.tail({ names: new Set(['nope']), ids: null, streams: new Set(['out']) }, 10), [])
  a.end()
  b.end()
  await sink.close()
})

test('history from a pre-existing file, then the ring, without duplicates', async () => {
  const dir = tmp()
  fs.writeFileSync(path.join(dir, 'old-out.log'), numbered('old', 0, 50))
  const sink = createLogSink({ logsDir: dir })
  const p = attach(sink, spec('old'))
  p.stdout.write(numbered('new', 0, 10))
  await waitFor(() => sink.stats().lines === 10)
  const lines = (await sink.tail(ALL, 30)).map((l) => l.line)
  assert.deepEqual(lines, [...numbered('old', 30, 50).split('\n').slice(0, -1), ...numbered('new', 0, 10).split('\n').slice(0, -1)])
  const everything = (await sink.tail(ALL, 1000)).map((l) => l.line)
  assert.equal(everything.length, 60)
  assert.equal(new Set(everything).size, 60)
  assert.equal((await sink.tail(ALL, 1000)).find((l) => l.line === 'old 0').id, null)
  p.end()
  await sink.close()
})

test('history longer than the ring comes from disk and rotated files without a gap', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const p = attach(sink, spec('deep', { rotate: { size: 16 * 1024, maxFiles: 20 } }))
  await feed(p.stdout, numbered('d', 0, 5000))
  await waitFor(() => sink.stats().lines === 5000)
  const lines = await sink.tail(ALL, 3000)
  assert.deepEqual(lines.map(seqOf), Array.from({ length: 3000 }, (_, i) => 2000 + i))
  p.end()
  await sink.close()
})

test('a tail taken while a writer floods: history then live is one unbroken run', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const p = attach(sink, spec('race', { time: true }))
  const total = 60000
  const feeding = feed(p.stdout, numbered('r', 0, total), { chunk: 1500 })
  await waitFor(() => sink.stats().lines > 20000)
  const live = []
  const history = await sink.tailAndSubscribe(ALL, 1500, (l) => live.push(l))
  await feeding
  await waitFor(() => sink.stats().lines === total)
  await waitFor(() => seqOf(live.at(-1) ?? history.at(-1)) === total - 1, { message: 'the last line delivered live' })
  const seqs = [...history, ...live].map(seqOf)
  assert.equal(history.length, 1500)
  seqs.forEach((n, i) => assert.equal(n, seqs[0] + i, `at ${i}`))
  assert.equal(seqs[seqs.length - 1], total - 1)
  p.end()
  await sink.close()
})

test('flush while writing: no error, files emptied, later lines appear', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const p = attach(sink, spec('fl', { rotate: { size: 8192, maxFiles: 3 } }))
  const feeding = feed(p.stdout, numbered('x', 0, 20000), { chunk: 1000 })
  await waitFor(() => sink.stats().lines > 5000)
  await sink.flush('fl')
  await feeding
  p.stdout.write('after flush\n')
  p.end()
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  const names = fs.readdirSync(dir).filter((n) => n.startsWith('fl-out.log'))
  const kept = names.flatMap((n) => fs.readFileSync(path.join(dir, n), 'utf8').split('\n').slice(0, -1))
  assert.ok(kept.includes('after flush'))
  assert.ok(!kept.includes('x 0'), 'lines from before the flush are gone')
  assert.ok(kept.length < 20000)
})

test('flush empties the ring too: history after a flush has only later lines', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const p = attach(sink, spec('fr'))
  p.stdout.write('before\n')
  await waitFor(() => sink.stats().lines === 1)
  await sink.flush(null)
  p.stdout.write('after\n')
  await waitFor(() => sink.stats().lines === 2)
  assert.deepEqual((await sink.tail(ALL, 10)).map((l) => l.line), ['after'])
  p.end()
  await sink.close()
})

test('reopen after an external rename creates a new file and writes there', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const p = attach(sink, spec('ro'))
  p.stdout.write(numbered('o', 0, 100))
  await waitFor(() => sink.stats().lines === 100 && sink.stats().bufferedBytes === 0)
  fs.renameSync(path.join(dir, 'ro-out.log'), path.join(dir, 'ro-out.log.moved'))
  p.stdout.write('o 100\n')
  await sink.reopen()
  p.stdout.write(numbered('o', 101, 200))
  p.end()
  await waitFor(() => sink.stats().sources === 0)
  await sink.close()
  const moved = fs.readFileSync(path.join(dir, 'ro-out.log.moved'), 'utf8').split('\n').slice(0, -1)
  const fresh = fs.readFileSync(path.join(dir, 'ro-out.log'), 'utf8').split('\n').slice(0, -1)
  assert.ok(fresh.length > 0 && fresh.at(-1) === 'o 199')
  const all = [...moved, ...fresh].map((l) => Number(l.split(' ')[1]))
  assert.deepEqual(all, Array.from({ length: 200 }, (_, i) => i))
})

test('lines keep flowing to subscribers across a restart (a new attach for the same app)', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const seen = []
  sink.subscribe({ names: new Set(['rs']), ids: null, streams: new Set(['out']) }, (l) => seen.push(`${l.pid}:${l.line}`))
  const first = attach(sink, spec('rs'), 0)
  first.stdout.end('one\n')
  first.stderr.end()
  const second = attach(sink, spec('rs'), 0)
  second.stdout.write('two\n')
  await waitFor(() => seen.length === 2)
  assert.deepEqual(seen, ['1000:one', '1000:two'])
  second.end()
  await sink.closeApp('rs')
  assert.equal(sink.stats().files, 0)
  await sink.close()
})

test('recent: one instance\'s last lines from its own files\' rings, other instances and apps left out', async () => {
  const sink = createLogSink({ logsDir: tmp() })
  const a = attach(sink, spec('r'), 0)
  const b = attach(sink, spec('r'), 1)
  const other = attach(sink, spec('other'), 0)
  a.stdout.write('a out 1\n')
  b.stdout.write('b out\n')
  a.stderr.write('a err 2\n')
  other.stdout.write('other\n')
  a.stdout.write('a out 3\n')
  await waitFor(() => sink.stats().lines === 5)
  assert.deepEqual(sink.recent({ name: 'r', instance: 0, id: 0 }, 10).map((l) => [l.stream, l.line, l.pid]), [['out', 'a out 1', 1000], ['err', 'a err 2', 1000], ['out', 'a out 3', 1000]])
  assert.deepEqual(sink.recent({ name: 'r', instance: 0, id: 0 }, 2).map(seqOf), [2, 3], 'the last n, in order')
  assert.deepEqual(sink.recent({ name: 'nobody', instance: 0, id: 9 }, 10), [])
  for (const p of [a, b, other]) p.end()
  await sink.close()
})

test('recent: an exited process\'s lines once a replacement with other log files took its instance (a reload that changed out_file)', async () => {
  const dir = tmp()
  const sink = createLogSink({ logsDir: dir })
  const pipes = () => ({ stdout: new PassThrough(), stderr: new PassThrough() })
  const old = pipes()
  sink.attach({ spec: spec('r', { outFile: path.join(dir, 'a.log') }), proc: { id: 0, name: 'r', instance: 0, pid: 1000 }, ...old })
  old.stdout.write('old last words\n')
  await waitFor(() => sink.stats().lines === 1)
  const next = pipes() // attached before the old one's exit is journaled
  sink.attach({ spec: spec('r', { outFile: path.join(dir, 'b.log') }), proc: { id: 0, name: 'r', instance: 0, pid: 1001 }, ...next })
  next.stdout.write('new first words\n')
  await waitFor(() => sink.stats().lines === 2)
  const recent = sink.recent({ name: 'r', instance: 0, id: 0, pipes: [old.stdout, old.stderr] }, 10)
  assert.deepEqual(recent.filter((l) => l.pid === 1000).map((l) => l.line), ['old last words'])
  for (const p of [old, next]) { p.stdout.end(); p.stderr.end() }
  await sink.close()
})
