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

// The metric history of one process, compact: each point is POINT_FIELDS as 8-byte floats in one
// Float64Array (64 bytes a point; null is stored as NaN), grown by doubling as points arrive so a
// process sampled slowly holds little. `push(point, limit)` keeps at most `limit` points (the
// caller lowers it when many processes share the total budget; older points go first).
const POINT_FIELDS = ['at', 'cpu', 'memory', 'heapUsed', 'heapTotal', 'elP95', 'elP99', 'elu']
const WIDTH = POINT_FIELDS.length
const POINT_BYTES = WIDTH * Float64Array.BYTES_PER_ELEMENT
const FIRST_CAPACITY = 8

class PointHistory {
  constructor () {
    this.data = null
    this.capacity = 0
    this.start = 0
    this.length = 0
  }

  get bytes () {
    return this.capacity * POINT_BYTES
  }

  push (point, limit) {
    if (!(limit >= 1)) return
    while (this.length >= limit) this.dropOldest()
    if (this.capacity > limit) this.resize(limit) // the budget shrank: give the memory back
    if (this.length === this.capacity) this.resize(Math.min(limit, Math.max(FIRST_CAPACITY, this.capacity * 2)))
    const base = ((this.start + this.length) % this.capacity) * WIDTH
    for (let f = 0; f < WIDTH; f++) {
      const value = point[POINT_FIELDS[f]]
      this.data[base + f] = typeof value === 'number' ? value : NaN
    }
    this.length++
  }

  dropOldest () {
    this.start = (this.start + 1) % this.capacity
    this.length--
  }

  resize (capacity) {
    const data = new Float64Array(capacity * WIDTH)
    for (let i = 0; i < this.length; i++) {
      const from = ((this.start + i) % this.capacity) * WIDTH
      data.set(this.data.subarray(from, from + WIDTH), i * WIDTH)
    }
    this.data = data
    this.capacity = capacity
    this.start = 0
  }

  // Oldest first, as plain objects; `since` (an `at`) and `max` (the newest n) narrow it.
  toArray ({ since = -Infinity, max = Infinity, fields = POINT_FIELDS } = {}) {
    const out = []
    const keys = fields.map((key) => [key, POINT_FIELDS.indexOf(key)]).filter(([, f]) => f !== -1)
    for (let i = Math.max(0, this.length - max); i < this.length; i++) {
      const base = ((this.start + i) % this.capacity) * WIDTH
      if (!(this.data[base] >= since)) continue
      const point = {}
      for (const [key, f] of keys) {
        const value = this.data[base + f]
        point[key] = Number.isNaN(value) ? null : value
      }
      out.push(point)
    }
    return out
  }
}

module.exports.PointHistory = PointHistory
module.exports.POINT_FIELDS = POINT_FIELDS
module.exports.POINT_BYTES = POINT_BYTES
