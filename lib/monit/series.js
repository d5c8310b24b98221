'use strict'

// The dashboard's chart history of one process: time, CPU and heap used per push, 24 bytes a
// point in one Float64Array ring grown by doubling (null kept as NaN). `limit` is passed per
// push: the model lowers it when many processes share its budget; older points go first.
const KEYS = ['at', 'cpu', 'heapUsed']
const WIDTH = KEYS.length

class Series {
  constructor () {
    this.data = new Float64Array(0)
    this.capacity = 0
    this.start = 0
    this.length = 0
  }

  push (point, limit) {
    if (!(limit >= 1)) return
    while (this.length >= limit) {
      this.start = (this.start + 1) % this.capacity
      this.length--
    }
    if (this.capacity > limit) this.resize(limit)
    if (this.length === this.capacity) this.resize(Math.min(limit, Math.max(8, this.capacity * 2)))
    const base = ((this.start + this.length) % this.capacity) * WIDTH
    for (let k = 0; k < WIDTH; k++) {
      const value = point[KEYS[k]]
      this.data[base + k] = typeof value === 'number' ? value : NaN
    }
    this.length++
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

  // One figure over time, oldest first, null where it was missing; the newest `max` only.
  values (key, max = Infinity) {
    const k = KEYS.indexOf(key)
    const out = []
    if (k === -1) return out
    for (let i = Math.max(0, this.length - max); i < this.length; i++) {
      const value = this.data[((this.start + i) % this.capacity) * WIDTH + k]
      out.push(Number.isNaN(value) ? null : value)
    }
    return out
  }

  toArray () {
    const columns = KEYS.map((key) => this.values(key))
    return columns[0].map((_, i) => Object.fromEntries(KEYS.map((key, k) => [key, columns[k][i]])))
  }
}

module.exports = { Series, SERIES_KEYS: KEYS }
