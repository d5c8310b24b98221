'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { kill, waitFor, startTimeOf } = require('./util')

// What xpm, PM2 and the raw cluster share: a private temp home and the processes they started
// (pid → its start time, so a recycled pid is never taken for one of them), so kill() can always
// leave nothing behind, whatever failed before.
class Contender {
  constructor (name) {
    this.name = name
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), `xpm-bench-${name}-`))
    this.seen = new Map()
  }

  track (...pids) {
    for (const pid of pids) {
      if (!pid || this.seen.has(pid)) continue
      const started = startTimeOf(pid)
      if (started !== null) this.seen.set(pid, started)
    }
  }

  // The processes seen that still run (the same pid and start time).
  alive () {
    return [...this.seen].filter(([pid, started]) => startTimeOf(pid) === started).map(([pid]) => pid)
  }

  // Ends every process this contender ever saw, then removes its home.
  async reap () {
    for (const pid of this.alive()) kill(pid, 'SIGTERM')
    await waitFor(() => this.alive().length === 0, { timeout: 3000 }).catch(() => {})
    for (const pid of this.alive()) kill(pid, 'SIGKILL')
    this.seen.clear()
  }

  async destroy () {
    await this.kill().catch(() => {})
    await this.reap()
    fs.rmSync(this.home, { recursive: true, force: true })
  }

  // Log files of an app (one or many, e.g. per instance), sorted.
  outFiles (name) {
    const dir = this.logsDir()
    let names = []
    try { names = fs.readdirSync(dir) } catch {}
    return names.filter((f) => f.startsWith(`${name}-out`) && f.endsWith('.log')).map((f) => path.join(dir, f)).sort()
  }
}

class NotApplicable extends Error {
  constructor (what) {
    super(`n/a: ${what}`)
    this.notApplicable = true
  }
}

module.exports = { Contender, NotApplicable }
