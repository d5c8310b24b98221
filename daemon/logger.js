'use strict'

const { finished } = require('node:stream/promises')
const { createJsonLogger } = require('./json-lines')
const { createStream } = require('./logs/rotating-file')

// No pid/hostname on every line: events carry their own `pid` (a worker's), and the `start`
// event records the daemon's. The line format is pino's (daemon/json-lines.js).

// The daemon's own log: one structured event per lifecycle change, in a file bounded by
// rotation (daemon.log, daemon.log.1 … daemon.log.<maxFiles>). The file is written
// asynchronously: call `await logger.close()` before process.exit or the last lines are lost.
function createDaemonLogger ({ file, level = 'info', size = 5 * 1024 * 1024, maxFiles = 3 } = {}) {
  const stream = createStream(file, { size: `${size}B`, rotate: maxFiles, mode: 0o600 })
  stream.on('error', (err) => process.stderr.write(`xpm: daemon log ${file} failed: ${err.message}\n`))
  const logger = createJsonLogger({ level, write: (line) => stream.write(line) })
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
// process.stdout is synchronous on Linux for files, TTYs and pipes alike (Node's "A note on
// process I/O"), so no line is lost at exit, as with the synchronous destination used before.
function createLogger ({ destination = process.stdout, level = 'info' } = {}) {
  const logger = createJsonLogger({ level, write: (line) => destination.write(line) })
  logger.close = async () => {}
  return logger
}

module.exports = { createDaemonLogger, createLogger }
