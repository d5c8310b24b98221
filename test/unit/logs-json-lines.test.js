'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { createJsonLogger, formatLine } = require('../../daemon/json-lines')

const T = new Date('2026-01-02T03:04:05.678Z')

// The lines pino 10 wrote for the same calls (base: null, isoTime), so daemon.log keeps its format.
test('json lines: pino\'s format (level number, ISO time, the fields, msg last)', () => {
  assert.equal(formatLine(30, T, { event: 'online', app: 'api', id: 0 }, 'api[0] online'),
    '{"level":30,"time":"2026-01-02T03:04:05.678Z","event":"online","app":"api","id":0,"msg":"api[0] online"}\n')
  assert.equal(formatLine(30, T, 'only a message'), '{"level":30,"time":"2026-01-02T03:04:05.678Z","msg":"only a message"}\n')
  assert.equal(formatLine(40, T, { a: { b: 1 }, gone: undefined }), '{"level":40,"time":"2026-01-02T03:04:05.678Z","a":{"b":1}}\n')
  assert.equal(formatLine(30, T, { err: 'a string' }, 'm'), '{"level":30,"time":"2026-01-02T03:04:05.678Z","err":"a string","msg":"m"}\n')
})

test('json lines: an err is { type, message, stack, own fields } with its causes, as pino\'s serializer', () => {
  const err = new Error('bad', { cause: new TypeError('inner') })
  err.code = 'XPM_ERR_X'
  const line = JSON.parse(formatLine(50, T, { event: 'error', err }, 'failed'))
  assert.equal(line.err.type, 'Error')
  assert.equal(line.err.message, 'bad: inner')
  assert.equal(line.err.code, 'XPM_ERR_X')
  assert.match(line.err.stack, /^Error: bad\n[\s\S]*\ncaused by: TypeError: inner\n/)
  assert.equal(JSON.parse(formatLine(50, T, new RangeError('r'), 'm')).err.type, 'RangeError')
})

test('json lines: a log call never throws (a circular value is "[Circular]", a BigInt its digits)', () => {
  const c = { x: 1 }
  c.self = c
  const shared = { a: 1 }
  assert.deepEqual(JSON.parse(formatLine(30, T, { c, n: 10n, s1: shared, s2: shared })).c, { x: 1, self: '[Circular]' })
  assert.deepEqual(JSON.parse(formatLine(30, T, { c, n: 10n, s1: shared, s2: shared })).s2, { a: 1 })
  assert.equal(JSON.parse(formatLine(30, T, { n: 10n })).n, '10')
})

test('json lines: levels below the logger\'s are not written', () => {
  const lines = []
  const logger = createJsonLogger({ level: 'warn', write: (l) => lines.push(JSON.parse(l).level), now: () => T })
  logger.debug({}, 'd')
  logger.info({}, 'i')
  logger.warn({}, 'w')
  logger.error({}, 'e')
  assert.deepEqual(lines, [40, 50])
  assert.throws(() => createJsonLogger({ level: 'loud', write () {} }), /unknown log level/)
})
