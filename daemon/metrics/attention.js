'use strict'

// Who is looking at the processes' figures, for the metrics schedule (daemon/metrics/index.js):
// - watchers: a dashboard subscription. One that names the processes it shows (`ids`) asks for
//   those only; one without ids asks for every process. A watcher may change its ids (the
//   dashboard scrolled) without going away;
// - a lease of leaseMs that every `list`/`show` takes (touch()): the daemon samples every process
//   at the full rate meanwhile; the agents report at it only for a request that returns their
//   figures (`jlist`, `show`: touch(ids, { agents: true })), for the processes it returns. The
//   `list` table shows only what the daemon reads from /proc, and an agent at the full rate wakes
//   its process 100 times a second (its loop-delay histogram at 10 ms), about 0.3 % of a core
//   each: with 1,000 processes, a table looked at every few seconds kept 3 cores busy;
// - the pace of Prometheus scrapes while they keep coming (scraped()): the agents report at it.
// onChange() is called whenever the answer to covers()/any/scrapeMs may have changed.
class Attention {
  constructor ({ slowMs, fullMs, leaseMs, now, timers, onChange }) {
    Object.assign(this, { slowMs, fullMs, leaseMs, now, timers, onChange })
    this.watchers = 0
    this.allWatchers = 0 // watchers without ids
    this.idCounts = new Map() // id → how many watchers name it
    this.leaseUntil = -Infinity
    this.leaseTimer = null
    this.agentsAll = false // a `jlist` during the current lease: every agent at the full rate
    this.shown = new Set() // ids a `show` returned during the current lease: their agents too
    this.scrapeMs = null // the pace of Prometheus scrapes while they keep coming
    this.lastScrapeAt = -Infinity
    this.scrapeTimer = null
  }

  // Every process at the full rate: a watcher of all of them, or a lease.
  get all () {
    return this.allWatchers > 0 || this.now() < this.leaseUntil
  }

  // Something at the full rate.
  get any () {
    return this.all || this.idCounts.size > 0
  }

  covers (id) {
    return this.all || this.idCounts.has(id)
  }

  // Whether the agent of `id` (null: of a process nobody names) reports at the full rate: a
  // watcher of it or of all, or a lease taken by a request that returned its figures.
  agentCovers (id = null) {
    return this.agentFine(id) || (this.now() < this.leaseUntil && this.agentsAll)
  }

  // Whether it also measures its event loop finely (10 ms ticks: 100 wake-ups a second): for a
  // watcher, or a `show` that returned it. A `jlist`'s lease of every process asks for reports
  // every second with 100 ms ticks: at 1,000 processes, fine ticks for all of them saturated the
  // machine for 10 s after each `jlist` (a deploy script polling it kept it so).
  agentFine (id = null) {
    if (this.allWatchers > 0) return true
    if (id === null) return false
    return this.idCounts.has(id) || (this.now() < this.leaseUntil && this.shown.has(id))
  }

  // A watcher of `ids` (an iterable of process ids; null: every process). Returns release(),
  // once is enough, with release.update(ids) to change what this watcher looks at.
  watch (ids = null) {
    this.watchers++
    let current = this.add(ids)
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.watchers--
      this.remove(current)
      this.onChange()
    }
    release.update = (next = null) => {
      if (released) return
      const added = this.add(next)
      this.remove(current)
      current = added
      this.onChange()
    }
    this.onChange()
    return release
  }

  add (ids) {
    if (ids === null) {
      this.allWatchers++
      return null
    }
    const set = new Set(ids)
    for (const id of set) this.idCounts.set(id, (this.idCounts.get(id) || 0) + 1)
    return set
  }

  remove (set) {
    if (set === null) {
      this.allWatchers--
      return
    }
    for (const id of set) {
      const n = this.idCounts.get(id) - 1
      if (n > 0) this.idCounts.set(id, n)
      else this.idCounts.delete(id)
    }
  }

  // Someone looked (`list`, `show`): full rate for the next leaseMs. agents: the request returns
  // the agents' figures of `ids` (null: of every process), whose agents report at it too, until
  // the lease ends.
  touch (ids = null, { agents = false } = {}) {
    this.leaseUntil = this.now() + this.leaseMs
    if (agents && ids === null) this.agentsAll = true
    else if (agents) for (const id of ids) this.shown.add(id)
    if (!this.leaseTimer) this.armLease(this.leaseMs)
    this.onChange()
  }

  armLease (ms) {
    this.leaseTimer = this.timers.setTimeout(() => {
      this.leaseTimer = null
      const left = this.leaseUntil - this.now()
      if (left > 0) this.armLease(left)
      else {
        this.agentsAll = false
        this.shown.clear()
        this.onChange()
      }
    }, ms)
    this.leaseTimer.unref?.()
  }

  // A Prometheus scrape. From the second one on, the gap between two scrapes is their pace;
  // scrapes further apart than the slow interval change nothing.
  scraped () {
    const t = this.now()
    const gap = t - this.lastScrapeAt
    this.lastScrapeAt = t
    if (!(gap < this.slowMs)) return
    this.scrapeMs = Math.max(this.fullMs, Math.round(gap))
    this.timers.clearTimeout(this.scrapeTimer)
    this.scrapeTimer = this.timers.setTimeout(() => {
      this.scrapeTimer = null
      this.scrapeMs = null
      this.onChange()
    }, 2 * this.scrapeMs)
    this.scrapeTimer.unref?.()
    this.onChange()
  }

  stop () {
    this.timers.clearTimeout(this.leaseTimer)
    this.timers.clearTimeout(this.scrapeTimer)
    this.leaseTimer = null
    this.scrapeTimer = null
  }
}

module.exports = { Attention }
