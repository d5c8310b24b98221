'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { LineSplitter } = require('../../daemon/logs/line-splitter')

test('a line split across chunks is joined', () => {
  const s = new LineSplitter()
  assert.deepEqual(s.push(Buffer.from('hel')), [])
  assert.deepEqual(s.push(Buffer.from('lo\nwor')), ['hello'])
  assert.deepEqual(s.push(Buffer.from('ld\n\nx')), ['world', ''])
  assert.equal(s.end(), 'x')
  assert.equal(s.end(), null)
})

test('a multi-byte character split across chunks decodes whole', () => {
  const s = new LineSplitter()
  const bytes = Buffer.from('é€😀\n')
  const lines = []
  for (let i = 0; i < bytes.length; i++) lines.push(...s.push(bytes.subarray(i, i + 1)))
  assert.deepEqual(lines, ['é€😀'])
})

test('invalid UTF-8 decodes to replacement characters, no throw', () => {
  const s = new LineSplitter()
  assert.deepEqual(s.push(Buffer.from([0xff, 0xfe, 0x41, 0x0a, 0xc3, 0x0a])), ['\ufffd\ufffdA', '\ufffd'])
})

test('CRLF line endings lose the CR', () => {
  assert.deepEqual(new LineSplitter().push(Buffer.from('a\r\nb\r\n')), ['a', 'b'])
})

test('a very long line without newline is cut into bounded pieces', () => {
  const s = new LineSplitter({ maxLineBytes: 1024 })
  const pieces = []
  for (let i = 0; i < 100; i++) {
    pieces.push(...s.push(Buffer.alloc(700, 'x')))
    assert.ok(s.bufferedBytes <= 1024, `buffered ${s.bufferedBytes}`)
  }
  const rest = s.end()
  if (rest) pieces.push(rest)
  assert.ok(pieces.every((p) => p.length <= 1024))
  assert.equal(pieces.join('').length, 70000)
})

test('a long complete line in one chunk is cut, never splitting a character', () => {
  const s = new LineSplitter({ maxLineBytes: 10 })
  const lines = s.push(Buffer.from('aaaaaaaaa€€€\n'))
  assert.ok(lines.every((l) => Buffer.byteLength(l) <= 10 && !l.includes('\ufffd')), JSON.stringify(lines))
  assert.equal(lines.join(''), 'aaaaaaaaa€€€')
})
