'use strict'

const os = require('node:os')
const { performance } = require('node:perf_hooks')

// fork() is synchronous: each one costs the daemon's thread 7–12 ms on a quiet machine, several
// times that on a loaded one (more as the daemon's address space grows), and the daemon is the
// cluster primary that accepts every connection of every clustered app. A start of 100 apps
// used to fork them all in one turn of the event loop and stall it for 2.4 s; then at most 4 per
// turn, 150–220 ms on a loaded machine (bench: loop stalls). Starts take a slot here first, one
// at a time: the holder forks, then says done(); the next one goes in the same turn while the
// turn's forks have taken less than BUDGET_MS, else in the next turn, after the loop ran (I/O,
// accepted connections, replies). At least one fork per turn, however slow. A process is still
// adopted in the tick it is forked (Instance#fork).
//
// And at most MAX_BOOTING of the processes it forked are still booting (their app's entry has not
// run its first turn; for a process without the agent, until it is running): fork() returns
// only once the child has reached execve(), so each fork waits for the kernel to run the child
// once, behind every sibling still booting. With 100 booting, one fork took 10–20 ms on a quiet
// machine and 40–120 ms on a loaded one (that was the loop stall); with a few booting, 1–8 ms,
// and the last process is up no later: the cores are as busy either way (bench/spawn-latency.js).
// A process holds its place until it has booted or exited, BOOT_HOLD_MS at most, so apps that
// take long to boot slow the next forks down to MAX_BOOTING per BOOT_HOLD_MS, never stop them.
const BUDGET_MS = 20
const MAX_BOOTING = Math.max(2, 2 * (os.availableParallelism?.() ?? os.cpus().length))
const BOOT_HOLD_MS = 250

class ForkPacer {
  constructor ({ budgetMs = BUDGET_MS, maxBooting = MAX_BOOTING, bootHoldMs = BOOT_HOLD_MS, nextTurn = setImmediate, now = () => performance.now(), clock = { setTimeout, clearTimeout } } = {}) {
    Object.assign(this, { budgetMs, maxBooting, bootHoldMs, nextTurn, now, clock })
    this.queue = []
    this.holding = false
    this.booting = 0 // forked here, not booted or exited yet, held less than bootHoldMs
    this.turnStart = null // when this turn's first slot was given
    this.scheduled = false
  }

  // Resolves when a fork may run now (call done() once it has, or given up); rejects with the
  // signal's reason if the start is aborted while waiting.
  slot (signal = null) {
    signal?.throwIfAborted()
    if (!this.holding && !this.queue.length && this.canFork()) {
      this.take()
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, signal }
      this.queue.push(entry)
      signal?.addEventListener('abort', () => {
        const at = this.queue.indexOf(entry)
        if (at === -1) return // already given its slot: the holder sees the signal and says done()
        this.queue.splice(at, 1)
        reject(signal.reason)
      }, { once: true })
      if (!this.holding) this.schedule()
    })
  }

  // The holder forked `handle` (null: it did not need to, or the fork failed): the next one now
  // if the turn's budget and the booting processes allow, else in a later turn.
  done (handle = null) {
    this.holding = false
    if (handle && !handle.exited && !handle.isBooted) this.holdWhileBooting(handle)
    if (this.canFork()) this.next()
    else if (this.booting < this.maxBooting) this.schedule()
    // else the next fork waits for a booting process to let go (holdWhileBooting)
  }

  canFork () {
    return this.booting < this.maxBooting && this.inBudget()
  }

  inBudget () {
    return this.turnStart === null || this.now() - this.turnStart < this.budgetMs
  }

  holdWhileBooting (handle) {
    this.booting++
    let held = true
    const release = () => {
      if (!held) return
      held = false
      this.clock.clearTimeout(timer)
      handle.off('booted', release)
      handle.off('exit', release)
      this.booting--
      if (!this.holding && this.queue.length) this.schedule()
    }
    handle.once('booted', release)
    handle.once('exit', release)
    const timer = this.clock.setTimeout(release, this.bootHoldMs)
    timer?.unref?.()
  }

  take () {
    this.holding = true
    if (this.turnStart === null) {
      this.turnStart = this.now()
      this.schedule() // a new budget next turn
    }
  }

  next () {
    const entry = this.queue.shift()
    if (!entry) return
    this.take()
    entry.resolve()
  }

  schedule () {
    if (this.scheduled) return
    this.scheduled = true
    this.nextTurn(() => {
      this.scheduled = false
      this.turnStart = null
      if (!this.holding && this.booting < this.maxBooting) this.next()
    })
  }
}

module.exports = { ForkPacer, BUDGET_MS, MAX_BOOTING, BOOT_HOLD_MS }
