'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { PassThrough } = require('node:stream')
const { createDaemonLogger, createLogger } = require('../../daemon/logger')
const { tempDir } = require('../helpers/tmp')

test('daemon logger: one JSON event per call in daemon.log, all on disk after close()', async () => {
  const file = path.join(tempDir('xpm-dlog-'), 'daemon.log')
  const logger = createDaemonLogger({ file })
  logger.info({ event: 'online', app: 'api', id: 0, pid: 123 }, 'api[0] online')
  logger.error({ event: 'error', err: new Error('bad') }, 'failed')
  logger.debug({ event: 'hidden' }, 'below the level')
  await logger.close()
  const events = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(events.length, 2)
  assert.equal(events[0].event, 'online')
  assert.equal(events[0].app, 'api')
  assert.equal(events[0].msg, 'api[0] online')
  assert.match(events[0].time, /^\d{4}-\d\d-\d\dT/)
  assert.equal(events[1].err.message, 'bad')
})

test('daemon logger is bounded: it rotates past its size and keeps maxFiles', async () => {
  const dir = tempDir('xpm-dlog-')
  const file = path.join(dir, 'daemon.log')
  const logger = createDaemonLogger({ file, size: 4096, maxFiles: 2 })
  for (let i = 0; i < 2000; i++) logger.info({ event: 'status', i }, 'x'.repeat(50))
  await logger.close()
  assert.deepEqual(fs.readdirSync(dir).sort(), ['daemon.log', 'daemon.log.1', 'daemon.log.2'])
  for (const n of fs.readdirSync(dir)) assert.ok(fs.statSync(path.join(dir, n)).size < 4096 + 1024)
})

test('foreground logger writes to the given destination', async () => {
  const dest = new PassThrough()
  const chunks = []
  dest.on('data', (c) => chunks.push(c))
  const logger = createLogger({ destination: dest })
  logger.info({ event: 'start' }, 'hello')
  await logger.close()
  assert.equal(JSON.parse(Buffer.concat(chunks).toString()).event, 'start')
})
