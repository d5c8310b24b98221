'use strict'

const { finished } = require('node:stream/promises')
const pino = require('pino')
const { createStream } = require('./logs/rotating-file')

// No pid/hostname on every line: events carry their own `pid` (a worker's), and the `start`
// event records the daemon's.
const BASE = { base: null, timestamp: pino.stdTimeFunctions.isoTime }

// The daemon's own log: pino, one structured event per lifecycle change, in a file bounded by
// rotation (daemon.log, daemon.log.1 … daemon.log.<maxFiles>). The file is written
// asynchronously: call `await logger.close()` before process.exit or the last lines are lost.
function createDaemonLogger ({ file, level = 'info', size = 5 * 1024 * 1024, maxFiles = 3 } = {}) {
  const stream = createStream(file, { size: `${size}B`, rotate: maxFiles, mode: 0o600 })
  stream.on('error', (err) => process.stderr.write(`xpm: daemon log ${file} failed: ${err.message}\n`))
  const logger = pino({ ...BASE, level }, stream)
  let closing = null
  logger.close = () => {
    closing ??= (async () => {
      stream.end()
      try {
        await finished(stream)
      } catch {}
    })()
    return closing
  }
  return logger
}

// Foreground mode (containers): the same events as JSON lines on stdout or a given stream.
function createLogger ({ destination = null, level = 'info' } = {}) {
  const dest = destination || pino.destination({ fd: 1, sync: true })
  const logger = pino({ ...BASE, level }, dest)
  logger.close = async () => {
    if (typeof dest.flushSync === 'function') {
      try {
        dest.flushSync()
      } catch {}
    }
  }
  return logger
}

module.exports = { createDaemonLogger, createLogger }
