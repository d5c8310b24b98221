'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, fixture, BIN } = require('../helpers/xpm')

function readLines (file) {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
}

// All lines of a log and its rotated copies (<file>.N, oldest = highest N), oldest first.
function readRotated (file) {
  const dir = path.dirname(file)
  const base = path.basename(file)
  const rotated = fs.readdirSync(dir).filter((f) => f.startsWith(base + '.')).map((f) => Number(f.slice(base.length + 1))).sort((a, b) => b - a)
  return [...rotated.flatMap((n) => readLines(`${file}.${n}`)), ...readLines(file)]
}

test('two cluster workers write 100,000 numbered lines each in a burst: every line lands exactly once', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('spew-lines.js'), '-i', '2', '--name', 'burst', '--merge-logs'], { env: { SPEW_COUNT: '100000', SPEW_HTTP: '1' } })
  assert.equal(res.code, 0, res.stderr)
  const file = path.join(h.home, 'logs', 'burst-out.log')
  const lines = await waitFor(() => { const l = readRotated(file); return l.length >= 200000 && l }, { timeout: 30000, message: '200,000 lines' })
  assert.equal(lines.length, 200000)
  const seen = { 0: new Set(), 1: new Set() }
  const last = { 0: -1, 1: -1 }
  for (const line of lines) {
    const [tag, seq] = line.split(' ')
    assert.ok(Number(seq) === last[tag] + 1, `worker ${tag}: ${seq} after ${last[tag]}`)
    last[tag] = Number(seq)
    seen[tag].add(seq)
  }
  assert.equal(seen[0].size, 100000)
  assert.equal(seen[1].size, 100000)
})

test('a flood past the rotation limit: file count and size stay bounded, no line lost between the kept files', async (t) => {
  const h = createHome(t, { inProcess: true })
  const res = await h.run(['start', fixture('spew-lines.js'), '--name', 'flood', '--log-max-size', '64K', '--log-max-files', '3'], { env: { SPEW_COUNT: '200000' } })
  assert.equal(res.code, 0, res.stderr)
  const file = path.join(h.home, 'logs', 'flood-out.log')
  // A read that meets a rotation half-way (its renames shift the files under the reader) sees the
  // files out of order: read until one read is whole, consecutive and ends with the last line.
  const consecutive = (seqs) => seqs.every((n, i) => i === 0 || n === seqs[i - 1] + 1)
  const seqs = await waitFor(() => {
    const read = readRotated(file).map((l) => Number(l.split(' ')[1]))
    return read.at(-1) === 199999 && consecutive(read) && read
  }, { timeout: 30000, message: 'the last line, after the last rotation' })
  const files = fs.readdirSync(path.join(h.home, 'logs')).filter((f) => f.startsWith('flood-out.log'))
  assert.ok(files.length <= 4, files.join(','))
  const total = files.reduce((sum, f) => sum + fs.statSync(path.join(h.home, 'logs', f)).size, 0)
  assert.ok(total <= 4 * (64 * 1024 + 16 * 1024), `total ${total}`)
  for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1)
  assert.equal(seqs.at(-1), 199999)
})

test('xpm logs --lines 20 --nostream prints exactly the last 20 lines; a following xpm logs receives a new line', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('spew-lines.js'), '--name', 'few'], { env: { SPEW_COUNT: '500' } })).code, 0)
  const file = path.join(h.home, 'logs', 'few-out.log')
  await waitFor(() => readLines(file).length === 500)
  const res = await h.run(['logs', 'few', '--lines', '20', '--nostream', '--raw'])
  assert.equal(res.code, 0, res.stderr)
  const printed = res.stdout.split('\n').filter(Boolean)
  assert.deepEqual(printed, readLines(file).slice(-20))
  const prefixed = await h.run(['logs', 'few', '--lines', '3', '--nostream'])
  assert.match(prefixed.stdout.split('\n')[0], /^\d+\|few\s*\| /)

  assert.equal((await h.run(['start', fixture('tick-lines.js'), '--name', 'ticker'])).code, 0)
  const follower = spawn(process.execPath, [BIN, 'logs', 'ticker', '--lines', '0', '--raw'], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  follower.stdout.on('data', (d) => { out += d })
  t.after(() => follower.kill('SIGKILL'))
  const startedAt = readLines(path.join(h.home, 'logs', 'ticker-out.log')).length
  await waitFor(() => out.split('\n').some((l) => /^tick (\d+)$/.test(l) && Number(l.split(' ')[1]) > startedAt), { message: 'a live line' })
  // no gap and no duplicate: consecutive ticks
  const ticks = out.split('\n').filter((l) => l.startsWith('tick ')).map((l) => Number(l.split(' ')[1]))
  for (let i = 1; i < ticks.length; i++) assert.equal(ticks[i], ticks[i - 1] + 1)
  // lines keep flowing across a restart
  const seen = out.length
  assert.equal((await h.run(['restart', 'ticker'])).code, 0)
  await waitFor(() => out.slice(seen).includes('tick 2\n'), { message: 'lines after the restart' })
  follower.kill('SIGINT')
  const [code] = await new Promise((resolve) => follower.once('exit', (...a) => resolve(a)))
  assert.equal(code, 0)
})

test('flush while the app writes: no error, later lines appear', async (t) => {
  const h = createHome(t, { inProcess: true })
  assert.equal((await h.run(['start', fixture('tick-lines.js'), '--name', 'tk'], { env: { TICK_MS: '20' } })).code, 0)
  const file = path.join(h.home, 'logs', 'tk-out.log')
  await waitFor(() => readLines(file).length > 20)
  const res = await h.run(['flush', 'tk'])
  assert.equal(res.code, 0, res.stderr)
  assert.ok(readLines(file).length < 20)
  await waitFor(() => readLines(file).length > 10, { message: 'new lines after flush' })
  const n = Number(readLines(file).at(-1).split(' ')[1])
  assert.ok(n > 20)
})

test('--time puts a timestamp on every line in cluster and fork mode; -l writes the combined file', async (t) => {
  const h = createHome(t, { inProcess: true })
  const combined = path.join(h.home, 'combined.txt')
  assert.equal((await h.run(['start', fixture('tick-lines.js'), '-i', '2', '--name', 'cl', '--merge-logs', '--time', '-l', combined])).code, 0)
  assert.equal((await h.run(['start', fixture('tick-lines.js'), '--name', 'fk', '--time'])).code, 0)
  const stamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}/
  for (const name of ['cl', 'fk']) {
    const file = path.join(h.home, 'logs', `${name}-out.log`)
    const lines = await waitFor(() => { const l = readLines(file); return l.length > 30 && l })
    for (const line of lines) assert.match(line, stamp, `${name}: ${line}`)
  }
  const lines = await waitFor(() => { const l = readLines(combined); return l.some((x) => x.includes('warn ')) && l })
  assert.ok(lines.some((l) => / tick \d+$/.test(l)))
  for (const line of lines) assert.match(line, stamp)
})
