'use strict'

// The last lines written to one file, bounded by count and by bytes.
class Ring {
  constructor ({ maxLines = 1000, maxBytes = 512 * 1024 } = {}) {
    this.maxLines = maxLines
    this.maxBytes = maxBytes
    this.items = new Array(maxLines)
    this.head = 0
    this.length = 0
    this.bytes = 0
  }

  push (record) {
    if (this.length === this.maxLines) this.shift()
    this.items[(this.head + this.length) % this.maxLines] = record
    this.length++
    this.bytes += record.size
    while (this.bytes > this.maxBytes && this.length > 1) this.shift()
  }

  shift () {
    const record = this.items[this.head]
    this.items[this.head] = undefined
    this.head = (this.head + 1) % this.maxLines
    this.length--
    this.bytes -= record.size
  }

  first () {
    return this.length ? this.items[this.head] : null
  }

  toArray () {
    const out = new Array(this.length)
    for (let i = 0; i < this.length; i++) out[i] = this.items[(this.head + i) % this.maxLines]
    return out
  }

  clear () {
    this.items = new Array(this.maxLines)
    this.head = 0
    this.length = 0
    this.bytes = 0
  }
}

module.exports = { Ring }
