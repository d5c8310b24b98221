'use strict'

const NL = 0x0a
const CR = 0x0d

// Turns a byte stream into lines. Bytes are joined before decoding, so a line or a multi-byte
// character split across pipe reads comes out whole. Invalid UTF-8 decodes to U+FFFD. A line
// longer than maxLineBytes is cut into pieces so one runaway write cannot grow memory.
class LineSplitter {
  constructor ({ maxLineBytes = 64 * 1024 } = {}) {
    this.max = maxLineBytes
    this.parts = []
    this.partBytes = 0
  }

  get bufferedBytes () {
    return this.partBytes
  }

  // The complete lines in chunk, as strings without their newline.
  push (chunk) {
    const lines = []
    let start = 0
    let nl
    while ((nl = chunk.indexOf(NL, start)) !== -1) {
      let piece = chunk.subarray(start, nl)
      if (this.partBytes) piece = this.takePartial(piece)
      this.emit(piece, lines)
      start = nl + 1
    }
    if (start < chunk.length) this.keep(chunk.subarray(start), lines)
    return lines
  }

  // The last line of a stream that did not end with a newline, or null.
  end () {
    if (!this.partBytes) return null
    const piece = this.takePartial(Buffer.alloc(0))
    const lines = []
    this.emit(piece, lines)
    return lines.length ? lines[lines.length - 1] : null
  }

  takePartial (tail) {
    this.parts.push(tail)
    const joined = Buffer.concat(this.parts, this.partBytes + tail.length)
    this.parts = []
    this.partBytes = 0
    return joined
  }

  // Copies the remainder: a subarray would pin the whole pipe chunk in memory.
  keep (rest, lines) {
    this.parts.push(Buffer.from(rest))
    this.partBytes += rest.length
    if (this.partBytes <= this.max) return
    let joined = this.takePartial(Buffer.alloc(0))
    while (joined.length > this.max) {
      const cut = boundary(joined, this.max)
      lines.push(decode(joined.subarray(0, cut)))
      joined = joined.subarray(cut)
    }
    if (joined.length) {
      this.parts.push(Buffer.from(joined))
      this.partBytes = joined.length
    }
  }

  emit (buf, lines) {
    while (buf.length > this.max) {
      const cut = boundary(buf, this.max)
      lines.push(decode(buf.subarray(0, cut)))
      buf = buf.subarray(cut)
    }
    if (buf.length && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1)
    lines.push(decode(buf))
  }
}

// Cuts before a UTF-8 continuation byte run so a character is not split between two pieces.
function boundary (buf, max) {
  let cut = max
  while (cut > max - 4 && cut > 0 && (buf[cut] & 0xc0) === 0x80) cut--
  return cut > 0 && cut > max - 4 ? cut : max
}

function decode (buf) {
  return buf.toString('utf8')
}

module.exports = { LineSplitter }
