'use strict'

const { compileDateFormat } = require('./date-format')

// How an app's lines look in its files. `line` (what subscribers and `xpm logs` see) is the
// file's text in plain mode, timestamp included, and the bare message in JSON mode.
function createEntryFormatter (logs = {}) {
  const formatTime = compileDateFormat(logs.dateFormat)
  if (logs.json) {
    return {
      json: true,
      line: (message) => message,
      file: (obj, message) => JSON.stringify({
        app: obj.app,
        instance: obj.instance,
        id: obj.id,
        pid: obj.pid,
        stream: obj.stream,
        time: formatTime(obj.time),
        message
      })
    }
  }
  // A date format given without --time still prefixes the date, as PM2 does.
  if (logs.time || logs.dateFormat) {
    return {
      json: false,
      line: (message, time) => `${formatTime(time)}: ${message}`,
      file: (obj) => obj.line
    }
  }
  return { json: false, line: (message) => message, file: (obj) => obj.line }
}

// A line read back from a JSON-mode file, as the object subscribers get.
function parseJsonLine (text, fallback) {
  try {
    const o = JSON.parse(text)
    if (o && typeof o === 'object' && typeof o.message === 'string') {
      const time = Date.parse(o.time)
      return {
        app: o.app ?? fallback.app,
        id: o.id ?? null,
        instance: o.instance ?? null,
        pid: o.pid ?? null,
        stream: o.stream === 'err' ? 'err' : 'out',
        time: Number.isNaN(time) ? null : time,
        line: o.message
      }
    }
  } catch {}
  return { ...fallback, line: text }
}

module.exports = { createEntryFormatter, parseJsonLine }
