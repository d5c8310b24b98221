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
    const nl = chunk.indexOf(NL)
    if (nl !== -1 && this.partBytes) {
      this.emit(this.takePartial(chunk.subarray(0, nl)), lines)
      start = nl + 1
    }
    const last = chunk.lastIndexOf(NL)
    if (last >= start) {
      // The complete lines of a read, decoded at once: one string per chunk instead of one
      // decode per line. A '\n' byte never occurs inside a UTF-8 sequence, and an invalid
      // sequence before it decodes to U+FFFD either way, so splitting the string is the same.
      for (const line of chunk.toString('utf8', start, last).split('\n')) {
        if (line.length * 3 > this.max && Buffer.byteLength(line) > this.max) this.emit(Buffer.from(line), lines)
        else lines.push(line.endsWith('\r') ? line.slice(0, -1) : line)
      }
      start = last + 1
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
