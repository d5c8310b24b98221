'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { compileDateFormat } = require('../../daemon/logs/date-format')
const { createEntryFormatter, parseJsonLine } = require('../../daemon/logs/format-entry')
const { formatLine, shouldColor } = require('../../lib/shared/logs/format-line')

const T = Date.UTC(2026, 10, 22, 3, 4, 5, 67)

test('no date format means ISO 8601 in UTC', () => {
  assert.equal(compileDateFormat(null)(T), '2026-11-22T03:04:05.067Z')
})

test('PM2-like tokens in local time, bracketed text kept', () => {
  const d = new Date(T)
  const fmt = compileDateFormat('YYYY-MM-DD HH:mm:ss.SSS [at] Z')
  const p = (n) => String(n).padStart(2, '0')
  const off = -d.getTimezoneOffset()
  const z = (off < 0 ? '-' : '+') + p(Math.floor(Math.abs(off) / 60)) + ':' + p(Math.abs(off) % 60)
  assert.equal(fmt(T), `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.067 at ${z}`)
})

test('every dayjs token PM2 accepts: 12-hour clock, AM/PM, short year, month names, no padding', () => {
  const local = new Date(2026, 0, 5, 15, 4, 5, 7).getTime() // Monday 5 January 2026, 15:04:05.007 local
  assert.equal(compileDateFormat('hh:mm:ss A')(local), '03:04:05 PM')
  assert.equal(compileDateFormat('h:m:s a')(local), '3:4:5 pm')
  assert.equal(compileDateFormat('YY-M-D H')(local), '26-1-5 15')
  assert.equal(compileDateFormat('MMM MMMM ddd dddd dd d')(local), 'Jan January Mon Monday Mo 1')
  assert.equal(compileDateFormat('[YYYY] YYYY')(local), 'YYYY 2026')
  assert.equal(compileDateFormat('ss.SSS')(local), '05.007')
})

test('the text is computed once per second (once per millisecond with SSS)', () => {
  const fmt = compileDateFormat('HH:mm:ss')
  const base = new Date(2026, 0, 5, 15, 4, 5, 0).getTime()
  assert.equal(fmt(base + 10), fmt(base + 990))
  assert.notEqual(fmt(base + 999), fmt(base + 1000))
  const ms = compileDateFormat('ss.SSS')
  assert.notEqual(ms(base + 1), ms(base + 2))
  assert.notEqual(compileDateFormat('[S] ss')(base), undefined)
})

test('entry formatter: plain, time prefix, JSON shape', () => {
  const obj = { app: 'api', id: 3, instance: 1, pid: 42, stream: 'err', time: T }
  assert.equal(createEntryFormatter({}).line('hi', T), 'hi')
  const timed = createEntryFormatter({ time: true })
  assert.equal(timed.line('hi', T), '2026-11-22T03:04:05.067Z: hi')
  const json = createEntryFormatter({ json: true })
  const text = json.file({ ...obj, line: json.line('hi', T) }, 'hi')
  assert.deepEqual(JSON.parse(text), { app: 'api', instance: 1, id: 3, pid: 42, stream: 'err', time: '2026-11-22T03:04:05.067Z', message: 'hi' })
  assert.deepEqual(parseJsonLine(text, {}), { app: 'api', id: 3, instance: 1, pid: 42, stream: 'err', time: T, line: 'hi' })
  assert.deepEqual(parseJsonLine('not json', { app: 'x' }), { app: 'x', line: 'not json' })
})

test('CLI line format: prefix, raw, JSON, colors only when asked', () => {
  const obj = { app: 'api', id: 0, instance: 0, pid: 1, stream: 'out', time: T, line: 'hello' }
  assert.equal(formatLine(obj), '0|api| hello')
  assert.equal(formatLine(obj, { raw: true }), 'hello')
  assert.deepEqual(JSON.parse(formatLine(obj, { json: true })), obj)
  assert.equal(formatLine({ ...obj, id: null }), '-|api| hello')
  const colored = formatLine({ ...obj, stream: 'err' }, { color: true })
  assert.ok(colored.startsWith('\x1b[31m0|api| \x1b[0m'), JSON.stringify(colored))
  assert.equal(shouldColor({ isTTY: false }, {}), false)
  assert.equal(shouldColor({ isTTY: true }, {}), true)
  assert.equal(shouldColor({ isTTY: true }, { NO_COLOR: '1' }), false)
})

test('rotation options: defaults, interval in ms mapped to rotating-file-stream units', () => {
  const { normalizeRotate, rfsOptions, rfsInterval } = require('../../daemon/logs/paths')
  assert.deepEqual(normalizeRotate(undefined), { size: 10485760, maxFiles: 10, interval: null, compress: false })
  assert.equal(normalizeRotate(false), null)
  assert.deepEqual(rfsOptions(normalizeRotate({ size: 1024, maxFiles: 0, interval: 86400000, compress: true })),
    { size: '1024B', interval: '1d', rotate: 1, compress: 'gzip' })
  assert.equal(rfsInterval(3600000), '1h')
  assert.equal(rfsInterval(7 * 60000), '6m')
  assert.equal(rfsInterval(500), '1s')
  assert.equal(rfsInterval('5m'), '5m')
})
