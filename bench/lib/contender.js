'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { isAlive, kill, waitFor } = require('./util')

// What xpm, PM2 and the raw cluster share: a private temp home and the set of pids they
// started, so kill() can always leave nothing behind, whatever failed before.
class Contender {
  constructor (name) {
    this.name = name
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), `xpm-bench-${name}-`))
    this.seen = new Set()
  }

  track (...pids) {
    for (const pid of pids) if (pid) this.seen.add(pid)
  }

  // Ends every pid this contender ever saw, then removes its home.
  async reap () {
    for (const pid of this.seen) if (isAlive(pid)) kill(pid, 'SIGTERM')
    await waitFor(() => [...this.seen].every((p) => !isAlive(p)), { timeout: 3000 }).catch(() => {})
    for (const pid of this.seen) if (isAlive(pid)) kill(pid, 'SIGKILL')
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
