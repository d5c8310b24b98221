'use strict'

// The last lines written to one file, bounded by count and by bytes, and all rings of the daemon
// together bounded by a shared byte budget. What they hold is a cache: `xpm logs` reads older
// lines back from the files.
//
// Bytes count what a line costs in memory: its text plus RECORD_OVERHEAD for the objects that
// carry it. Each ring keeps at most maxLines and maxBytes; when all rings together pass the
// budget, every ring gives back down to an equal share of it (budget / rings). A ring the log
// sink has dropped leaves the budget when it is garbage-collected.
const MAX_LINES = 1000
const MAX_BYTES = 256 * 1024 // per file
const TOTAL_BYTES = 16 * 1024 * 1024 // all files of the daemon together
const RECORD_OVERHEAD = 160
const FIRST_CAPACITY = 16 // slots a ring starts with; it doubles up to maxLines as lines come

class RingBudget {
  constructor (total = TOTAL_BYTES) {
    this.total = total
    this.bytes = 0
    this.rings = new Map() // WeakRef(ring) → its account ({ bytes })
    this.registry = new FinalizationRegistry(({ ref, account }) => {
      if (this.rings.delete(ref)) this.bytes -= account.bytes
    })
  }

  add (ring) {
    const ref = new WeakRef(ring)
    this.rings.set(ref, ring.account)
    this.registry.register(ring, { ref, account: ring.account }, ring)
    return ref
  }

  remove (ring) {
    this.registry.unregister(ring)
    if (this.rings.delete(ring.ref)) this.bytes -= ring.account.bytes
  }

  share () {
    return Math.floor(this.total / Math.max(1, this.rings.size))
  }

  // Over the budget: every ring down to its share, so the budget is met again. Runs when rings
  // were added since the last time (a ring over its share trims itself as it is written).
  enforce () {
    const share = this.share()
    for (const [ref, account] of this.rings) {
      const ring = ref.deref()
      if (ring) ring.trim(share, 0)
      else {
        this.rings.delete(ref) // collected, its finalizer not run yet
        this.bytes -= account.bytes
        account.bytes = 0
      }
    }
  }
}

const shared = new RingBudget()

class Ring {
  constructor ({ maxLines = MAX_LINES, maxBytes = MAX_BYTES, budget = shared } = {}) {
    this.maxLines = maxLines
    this.maxBytes = maxBytes
    // Grown on demand: an idle app's rings (two a process) hold no line, and 1,000 slots
    // allocated up front cost 8 KB each (1.6 MB of the daemon's heap with 100 apps).
    this.items = []
    this.head = 0
    this.length = 0
    this.account = { bytes: 0 } // shared with the budget's finalizer, which outlives the ring
    this.budget = budget
    this.ref = budget ? budget.add(this) : null
  }

  get bytes () {
    return this.account.bytes
  }

  push (record) {
    if (this.length === this.maxLines) this.shift()
    else if (this.length === this.items.length) this.grow()
    this.items[(this.head + this.length) % this.items.length] = record
    this.length++
    this.charge(cost(record))
    this.trim(this.maxBytes, 1)
    if (this.budget && this.budget.bytes > this.budget.total) {
      const share = this.budget.share()
      if (this.bytes > share) this.trim(share, 0)
      if (this.budget.bytes > this.budget.total) this.budget.enforce()
    }
  }

  // Drops the oldest lines until the ring holds at most `bytes` (keeping at least `keep` lines).
  trim (bytes, keep) {
    while (this.bytes > bytes && this.length > keep) this.shift()
  }

  // Full at its current capacity: the same lines, oldest first, in an array twice as long.
  grow () {
    const items = this.toArray()
    items.length = Math.min(this.maxLines, Math.max(FIRST_CAPACITY, this.items.length * 2))
    this.items = items
    this.head = 0
  }

  charge (bytes) {
    this.account.bytes += bytes
    if (this.budget) this.budget.bytes += bytes
  }

  shift () {
    const record = this.items[this.head]
    this.items[this.head] = undefined
    this.head = (this.head + 1) % this.items.length
    this.length--
    this.charge(-cost(record))
  }

  first () {
    return this.length ? this.items[this.head] : null
  }

  toArray () {
    const out = new Array(this.length)
    for (let i = 0; i < this.length; i++) out[i] = this.items[(this.head + i) % this.items.length]
    return out
  }

  clear () {
    this.items = []
    this.head = 0
    this.length = 0
    this.charge(-this.bytes)
  }

  // Leaves the budget now rather than when collected.
  release () {
    this.clear()
    this.budget?.remove(this)
    this.budget = null
  }
}

function cost (record) {
  return record.size + RECORD_OVERHEAD
}

module.exports = { Ring, RingBudget, MAX_LINES, MAX_BYTES, TOTAL_BYTES, RECORD_OVERHEAD }
