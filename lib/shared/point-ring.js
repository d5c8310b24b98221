'use strict'

// Points of fixed numeric fields over time in one Float64Array ring (8 bytes a field; null kept
// as NaN), grown by doubling as points arrive so a slowly fed ring holds little. push(point, limit)
// keeps at most `limit` points: the caller lowers it when many rings share one budget, and the
// oldest go first. Used by the daemon's metric history and by monit's charts.
const FIRST_CAPACITY = 8

class PointRing {
  constructor (fields) {
    this.fields = fields
    this.width = fields.length
    this.data = null
    this.capacity = 0
    this.start = 0
    this.length = 0
  }

  get bytes () {
    return this.capacity * this.width * Float64Array.BYTES_PER_ELEMENT
  }

  push (point, limit) {
    if (!(limit >= 1)) return
    while (this.length >= limit) this.dropOldest()
    if (this.capacity > limit) this.resize(limit) // the budget shrank: give the memory back
    if (this.length === this.capacity) this.resize(Math.min(limit, Math.max(FIRST_CAPACITY, this.capacity * 2)))
    const base = ((this.start + this.length) % this.capacity) * this.width
    for (let f = 0; f < this.width; f++) {
      const value = point[this.fields[f]]
      this.data[base + f] = typeof value === 'number' ? value : NaN
    }
    this.length++
  }

  dropOldest () {
    this.start = (this.start + 1) % this.capacity
    this.length--
  }

  resize (capacity) {
    const width = this.width
    const data = new Float64Array(capacity * width)
    for (let i = 0; i < this.length; i++) {
      const from = ((this.start + i) % this.capacity) * width
      data.set(this.data.subarray(from, from + width), i * width)
    }
    this.data = data
    this.capacity = capacity
    this.start = 0
  }

  // The value of field index f of the i-th oldest point (null where missing).
  value (i, f) {
    const value = this.data[((this.start + i) % this.capacity) * this.width + f]
    return Number.isNaN(value) ? null : value
  }

  // Oldest first, as plain objects; `since` (a value of the first field) and `max` (the newest n)
  // narrow it; `fields` picks the keys.
  toArray ({ since = -Infinity, max = Infinity, fields = this.fields } = {}) {
    const out = []
    const keys = fields.map((key) => [key, this.fields.indexOf(key)]).filter(([, f]) => f !== -1)
    for (let i = Math.max(0, this.length - max); i < this.length; i++) {
      if (!(this.data[((this.start + i) % this.capacity) * this.width] >= since)) continue
      const point = {}
      for (const [key, f] of keys) point[key] = this.value(i, f)
      out.push(point)
    }
    return out
  }

  // One field over time, oldest first; the newest `max` only.
  values (key, max = Infinity) {
    const f = this.fields.indexOf(key)
    const out = []
    if (f === -1) return out
    for (let i = Math.max(0, this.length - max); i < this.length; i++) out.push(this.value(i, f))
    return out
  }
}

module.exports = { PointRing }
