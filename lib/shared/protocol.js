'use strict'

// Newline-delimited JSON framing shared by the CLI and the daemon. Pure: no sockets here.
const PROTOCOL_VERSION = 1
const MiB = 1024 * 1024

// Each direction has its own line limit. What a client sends (a request) is small: the largest
// is a start of many apps, each with its environment. What the daemon sends (a reply or an
// event) can be large: `xpm logs` over long lines, `xpm show all` with many processes; the
// daemon answers XPM_ERR_REPLY_TOO_LARGE instead of a reply over the limit, and a client that
// still sees a longer line rejects at once (lib/cli/client.js) rather than waiting for a deadline.
const MAX_REQUEST_BYTES = 8 * MiB
const MAX_REPLY_BYTES = 64 * MiB
const MAX_LINE_BYTES = MAX_REQUEST_BYTES // the default of LineDecoder

function encode (message) {
  return JSON.stringify(message) + '\n'
}

// The UTF-8 size of an encoded line, without encoding it when its length alone settles the
// question (a UTF-16 code unit is at most 3 bytes of UTF-8).
function fitsIn (line, maxBytes) {
  return line.length * 3 <= maxBytes || Buffer.byteLength(line) <= maxBytes
}

// Splits a byte stream into parsed messages. A line longer than maxLineBytes or one that is
// not a JSON object is reported through onError and skipped; it never throws. onError gets a
// second argument { tooLong: true } for an over-long line (the stream is then out of step).
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
          this.onError({ code: 'XPM_ERR_PROTOCOL', message: `Line longer than ${this.maxLineBytes} bytes` }, { tooLong: true })
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

module.exports = { PROTOCOL_VERSION, MAX_LINE_BYTES, MAX_REQUEST_BYTES, MAX_REPLY_BYTES, encode, fitsIn, LineDecoder }
