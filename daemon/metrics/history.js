'use strict'

// A fixed-size ring of the most recent points; the oldest is dropped when full.
class History {
  constructor (size = 120) {
    if (!Number.isInteger(size) || size < 1) throw new TypeError(`History size must be a positive integer, got ${size}`)
    this.size = size
    this.items = new Array(size)
    this.start = 0
    this.length = 0
  }

  push (item) {
    if (this.length < this.size) {
      this.items[(this.start + this.length) % this.size] = item
      this.length++
    } else {
      this.items[this.start] = item
      this.start = (this.start + 1) % this.size
    }
  }

  last () {
    return this.length === 0 ? undefined : this.items[(this.start + this.length - 1) % this.size]
  }

  // Oldest first.
  toArray () {
    const out = new Array(this.length)
    for (let i = 0; i < this.length; i++) out[i] = this.items[(this.start + i) % this.size]
    return out
  }

  clear () {
    this.items = new Array(this.size)
    this.start = 0
    this.length = 0
  }
}

module.exports = { History }
