'use strict'

// Newline-delimited JSON framing shared by the CLI and the daemon. Pure: no sockets here.
const PROTOCOL_VERSION = 1
const MAX_LINE_BYTES = 1024 * 1024

function encode (message) {
  return JSON.stringify(message) + '\n'
}

// Splits a byte stream into parsed messages. A line longer than maxLineBytes or one that is
// not a JSON object is reported through onError and skipped; it never throws.
class LineDecoder {
  constructor ({ maxLineBytes = MAX_LINE_BYTES, onMessage, onError }) {
    this.maxLineBytes = maxLineBytes
    this.onMessage = onMessage
    this.onError = onError
    this.parts = []
    this.size = 0
    this.discarding = false
  }

  push (chunk) {
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start)
      const end = nl === -1 ? chunk.length : nl
      if (!this.discarding) {
        if (this.size + (end - start) > this.maxLineBytes) {
          this.discarding = true
          this.parts = []
          this.size = 0
          this.onError({ code: 'XPM_ERR_PROTOCOL', message: `Line longer than ${this.maxLineBytes} bytes` })
        } else if (end > start) {
          this.parts.push(chunk.subarray(start, end))
          this.size += end - start
        }
      }
      if (nl === -1) break
      if (!this.discarding) this.flushLine()
      this.discarding = false
      start = nl + 1
    }
  }

  flushLine () {
    const text = Buffer.concat(this.parts, this.size).toString('utf8')
    this.parts = []
    this.size = 0
    if (text.trim() === '') return
    let message
    try {
      message = JSON.parse(text)
    } catch (err) {
      this.onError({ code: 'XPM_ERR_PROTOCOL', message: `Bad JSON: ${err.message}` })
      return
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.onError({ code: 'XPM_ERR_PROTOCOL', message: 'Expected a JSON object per line' })
      return
    }
    this.onMessage(message)
  }
}

module.exports = { PROTOCOL_VERSION, MAX_LINE_BYTES, encode, LineDecoder }
