'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { LineDecoder, encode } = require('../../lib/shared/protocol')

function decoder (max) {
  const messages = []
  const errors = []
  const d = new LineDecoder({ maxLineBytes: max, onMessage: (m) => messages.push(m), onError: (e) => errors.push(e) })
  return { d, messages, errors }
}

test('joins a message split across chunks and splits several in one chunk', () => {
  const { d, messages } = decoder()
  const wire = encode({ id: 1, method: 'ping' }) + encode({ id: 2, method: 'list' })
  d.push(Buffer.from(wire.slice(0, 7)))
  d.push(Buffer.from(wire.slice(7)))
  assert.deepEqual(messages, [{ id: 1, method: 'ping' }, { id: 2, method: 'list' }])
})

test('bad JSON, non-objects and oversized lines are reported and skipped', () => {
  const { d, messages, errors } = decoder(32)
  d.push(Buffer.from('not json\n[1,2]\n' + 'x'.repeat(100) + '\n{"ok":true}\n'))
  assert.deepEqual(messages, [{ ok: true }])
  assert.equal(errors.length, 3)
  assert.ok(errors.every((e) => e.code === 'XPM_ERR_PROTOCOL'))
})

test('an oversized line is discarded in pieces without buffering it whole', () => {
  const { d, messages, errors } = decoder(16)
  for (let i = 0; i < 100; i++) d.push(Buffer.from('y'.repeat(10)))
  assert.ok(d.size <= 16)
  d.push(Buffer.from('\n{"a":1}\n'))
  assert.deepEqual(messages, [{ a: 1 }])
  assert.equal(errors.length, 1)
})

test('multi-byte characters split across chunks survive', () => {
  const { d, messages } = decoder()
  const buf = Buffer.from(encode({ text: 'héllo ✓' }))
  d.push(buf.subarray(0, 12))
  d.push(buf.subarray(12))
  assert.deepEqual(messages, [{ text: 'héllo ✓' }])
})
