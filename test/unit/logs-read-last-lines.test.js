'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { readLastLines, readLastLinesAcross } = require('../../daemon/logs/read-last-lines')
const { tempDir } = require('../helpers/tmp')

const tmp = () => tempDir('xpm-rll-')
const numbered = (from, to) => Array.from({ length: to - from }, (_, i) => `line ${from + i}`)

test('reads exactly the last n lines backwards across small blocks', async () => {
  const file = path.join(tmp(), 'a.log')
  fs.writeFileSync(file, numbered(0, 1000).join('\n') + '\n')
  for (const n of [0, 1, 7, 20, 999, 1000, 5000]) {
    const { lines } = await readLastLines(file, n, { blockSize: 13 })
    assert.deepEqual(lines, numbered(Math.max(0, 1000 - n), 1000), `n=${n}`)
  }
})

test('a file without a final newline still counts its last line', async () => {
  const file = path.join(tmp(), 'a.log')
  fs.writeFileSync(file, 'a\nb\nc')
  assert.deepEqual((await readLastLines(file, 2, { blockSize: 2 })).lines, ['b', 'c'])
  assert.deepEqual((await readLastLines(file, 9)).lines, ['a', 'b', 'c'])
})

test('skip leaves bytes at the end out; a missing file is empty', async () => {
  const file = path.join(tmp(), 'a.log')
  fs.writeFileSync(file, 'a\nb\nc\nd\n')
  assert.deepEqual((await readLastLines(file, 2, { skip: 4 })).lines, ['a', 'b'])
  assert.deepEqual((await readLastLines(file + '.nope', 2)).lines, [])
})

test('maxBytes bounds memory and drops the cut line', async () => {
  const file = path.join(tmp(), 'a.log')
  fs.writeFileSync(file, numbered(0, 1000).join('\n') + '\n')
  const r = await readLastLines(file, 1000, { maxBytes: 100, blockSize: 50 })
  assert.equal(r.reachedStart, false)
  assert.ok(r.lines.length > 0 && r.lines.length < 20)
  assert.deepEqual(r.lines, numbered(1000 - r.lines.length, 1000))
})

test('reads across rotated files newest first, with skip spanning files', async () => {
  const dir = tmp()
  const file = path.join(dir, 'a.log')
  fs.writeFileSync(file + '.2', numbered(0, 10).join('\n') + '\n')
  fs.writeFileSync(file + '.1', numbered(10, 20).join('\n') + '\n')
  fs.writeFileSync(file, numbered(20, 23).join('\n') + '\n')
  const files = [file, file + '.1', file + '.2', file + '.3']
  assert.deepEqual(await readLastLinesAcross(files, 15), numbered(8, 23))
  assert.deepEqual(await readLastLinesAcross(files, 100), numbered(0, 23))
  // skip the 3 lines of the current file and 2 of .1 (each line is 8 bytes)
  assert.deepEqual(await readLastLinesAcross(files, 4, { skip: 3 * 8 + 2 * 8 }), numbered(14, 18))
})
