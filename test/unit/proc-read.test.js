'use strict'

// lib/shared/proc-read.js: the daemon's reader of small /proc files. Real files in a temporary
// folder (small, at the buffer's edge, larger than the buffer); real processes' files:
// test/integration/proc-read-real.test.js.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readProcFile, SIZE, SLACK, pooled } = require('../../lib/shared/proc-read')
const { tempDir } = require('../helpers/tmp')

const dir = tempDir('xpm-proc-read-')
const text = (n, seed = 'x') => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7 + seed.charCodeAt(0)) % 90))).join('')
const file = (name, content) => { const f = path.join(dir, name); fs.writeFileSync(f, content, 'latin1'); return f }
const openFds = () => fs.readdirSync('/proc/self/fd').length

test('small files, empty files and latin1 bytes are read whole', async () => {
  assert.equal(await readProcFile(file('small', '12 345 ')), '12 345 ')
  assert.equal(await readProcFile(file('empty', '')), '')
  const bytes = Buffer.from([0x41, 0x00, 0xe9, 0xff, 0x29, 0x0a])
  fs.writeFileSync(path.join(dir, 'bytes'), bytes)
  assert.deepEqual(Buffer.from(await readProcFile(path.join(dir, 'bytes')), 'latin1'), bytes)
})

test('files at the edge of the buffer and larger than it are read whole', async () => {
  for (const n of [SIZE - SLACK, SIZE - SLACK + 1, SIZE - 1, SIZE, SIZE + 1, 3 * SIZE + 17, 300 * 1024]) {
    const want = text(n, String(n))
    assert.equal(await readProcFile(file(`f${n}`, want)), want, `${n} bytes`)
  }
  // a first buffer smaller than the file: every chunk after it
  const want = text(5000, 'q')
  assert.equal(await readProcFile(file('tiny-buffer', want), { size: 16 }), want)
})

test('many reads at once keep each its own text, and every fd is closed', async () => {
  const files = Array.from({ length: 40 }, (_, i) => [file(`c${i}`, text(100 + i * 150, String(i))), text(100 + i * 150, String(i))])
  const before = openFds()
  const got = await Promise.all(files.map(([f]) => readProcFile(f)))
  assert.deepEqual(got, files.map(([, want]) => want))
  assert.equal(openFds(), before)
  assert.ok(pooled() <= 16, 'the pool of buffers is bounded')
})

test('a missing file rejects with its fs error and leaves no fd open', async () => {
  const before = openFds()
  await assert.rejects(readProcFile(path.join(dir, 'nope')), { code: 'ENOENT' })
  await assert.rejects(readProcFile(dir), { code: 'EISDIR' })
  assert.equal(openFds(), before)
})
