'use strict'

// Everything an app's process started, so a stop ends all of it (Linux /proc; elsewhere the tree
// is the process alone and only its own signals apply).
//
// A process belongs to the tree of the app process (the leader) when
//  - it descends from the leader by parent links (/proc/<pid>/stat), found while the links are
//    still there: before the leader is signalled, since an orphan is handed to init (or to a
//    subreaper) and loses the link; or
//  - its environment carries the leader's launch tag (XPM_LAUNCH=<tag>, set by the launcher
//    beside the instance's stable XPM_TREE, lib/shared/tree-tag.js): this finds
//    what left the tree before the stop (a double-forked daemon that called setsid, a child
//    whose parent exited), as long as it kept the environment it inherited;
//  and so do their own descendants. A pid is only ever signalled together with the start time
//  it had when it was found (/proc/<pid>/stat field 22), so a recycled pid is never hit.
//
// Nothing here runs on a timer of its own: the process table is read when a stop asks for it,
// one read shared by every stop that asks meanwhile (`xpm stop all` reads it once), and
// environments are read only for processes started after the leader (a descendant cannot be
// older than the process it descends from).

const fsp = require('node:fs/promises')
const { setTimeout: sleep } = require('node:timers/promises')
const { mapLimited } = require('../../lib/shared/map-limited')
const { readProcStat } = require('../../lib/shared/proc-stat')
const { readProcFile } = require('../../lib/shared/proc-read')
const { LAUNCH_VAR, TREE_VAR, newLaunchTag } = require('../../lib/shared/tree-tag')

const TAG_VAR = LAUNCH_VAR // what a tree of one launch is matched on
const READ_CONCURRENCY = 16 // /proc reads in flight at once: the thread pool also writes the logs
const POLL_MS = 50 // how often the exit of a process that is not the daemon's child is checked

const newTag = () => newLaunchTag()

// One view of the process table: pid → { state, ppid, pgrp, startTime } for every live
// (non-zombie) process, a children index, and an index of launch tags, filled on demand: each
// process's environment is read at most once per table, whichever tree asks (a stop of 1,000
// processes used to have each of their trees read and search the environments of all the
// others: a million promises and a 2.5 s stall of the daemon's loop).
class ProcTable {
  constructor (procRoot, stats) {
    this.procRoot = procRoot
    this.stats = stats
    this.children = new Map()
    for (const [pid, stat] of stats) {
      const list = this.children.get(stat.ppid)
      if (list) list.push(pid)
      else this.children.set(stat.ppid, [pid])
    }
    this.newestFirst = null // [pid, start time], sorted at the first tag lookup
    this.tagsFrom = Infinity // the environments of every process started since then are read (or being read)
    this.tagReads = Promise.resolve()
    this.byTag = new Map() // launch tag → pids
  }

  // The pids, started at or after `since` (a start time), whose initial environment carries
  // launch tag `tag`.
  async withTag (tag, since) {
    if (since < this.tagsFrom) this.readTags(since)
    await this.tagReads
    return (this.byTag.get(tag) || []).filter((pid) => Number(this.stats.get(pid).startTime) >= since)
  }

  readTags (since) {
    this.newestFirst ??= [...this.stats].map(([pid, s]) => [pid, Number(s.startTime)]).sort((a, b) => b[1] - a[1])
    const pids = []
    for (const [pid, start] of this.newestFirst) {
      if (start < since) break
      if (start < this.tagsFrom) pids.push(pid)
    }
    this.tagsFrom = since
    const reading = mapLimited(pids, READ_CONCURRENCY, async (pid) => {
      const text = await readProcFile(`${this.procRoot}/${pid}/environ`).catch(() => '')
      const tag = launchTagOf(text)
      if (!tag) return
      const list = this.byTag.get(tag)
      if (list) list.push(pid)
      else this.byTag.set(tag, [pid])
    })
    this.tagReads = Promise.all([this.tagReads, reading])
  }
}

// The XPM_LAUNCH value of a /proc/<pid>/environ text (NUL-separated KEY=value), or null.
function launchTagOf (text) {
  const key = `${TAG_VAR}=`
  let at = text.startsWith(key) ? 0 : text.indexOf(`\0${key}`)
  if (at === -1) return null
  if (text[at] === '\0') at++
  const from = at + key.length
  const end = text.indexOf('\0', from)
  return text.slice(from, end === -1 ? text.length : end)
}

const readLiveStat = (procRoot, pid) => readProcStat(pid, { procRoot })

async function readTable (procRoot) {
  let names
  try {
    names = await fsp.readdir(procRoot)
  } catch {
    return new ProcTable(procRoot, new Map())
  }
  const stats = new Map()
  await mapLimited(names.filter((n) => /^\d+$/.test(n)), READ_CONCURRENCY, async (name) => {
    const stat = await readLiveStat(procRoot, name)
    if (stat) stats.set(Number(name), stat)
  })
  return new ProcTable(procRoot, stats)
}

// Reads of the table, shared: a caller that asks while a read is under way gets that read.
function createScanner ({ procRoot = '/proc' } = {}) {
  let pending = null
  return {
    procRoot,
    table () {
      if (!pending) pending = readTable(procRoot).finally(() => { pending = null })
      return pending
    },
    stat: (pid) => readLiveStat(procRoot, pid)
  }
}

const defaultScanner = createScanner()

// The tree of one leader process. leaderPid(): its pid while it has not been reaped, else 0.
// group: the process group the leader leads (fork mode), 0 when it shares the daemon's.
class ProcessTree {
  constructor ({ leaderPid, tag, group = 0, scanner = defaultScanner, kill = (pid, sig) => process.kill(pid, sig), selfPid = process.pid, pollMs = POLL_MS }) {
    this.leaderPid = leaderPid
    this.tag = tag
    this.group = group
    this.scanner = scanner
    this.kill = kill
    this.selfPid = selfPid
    this.pollMs = pollMs
    this.leaderStart = null // the leader's start time, once seen
    this.members = new Map() // pid → { pid, startTime, pgrp }, the leader not included
    this.signalled = new Set() // `${pid}@${startTime}` of members already sent the stop signal
    this.emptyAfterScan = false // the last change to `members` was a scan that found none
  }

  // Reads the table and updates the members: below the leader (while it runs) and the known
  // members, and whatever carries the tag. Resolves with the number of members.
  async collect () {
    const table = await this.scanner.table()
    const leader = this.leaderPid()
    const roots = []
    const leaderStat = leader ? table.stats.get(leader) : null
    if (leaderStat && (this.leaderStart === null || leaderStat.startTime === this.leaderStart)) {
      this.leaderStart = leaderStat.startTime
      roots.push(leader)
    }
    for (const m of this.members.values()) {
      if (table.stats.get(m.pid)?.startTime === m.startTime) roots.push(m.pid)
    }
    const found = new Set()
    const skip = new Set([this.selfPid, leader])
    const walk = (pid) => {
      for (const child of table.children.get(pid) || []) {
        if (skip.has(child) || found.has(child)) continue
        found.add(child)
        walk(child)
      }
    }
    for (const root of roots) {
      if (root !== leader) found.add(root)
      walk(root)
    }
    if (this.tag) {
      const since = this.leaderStart === null ? -Infinity : Number(this.leaderStart)
      for (const pid of await table.withTag(this.tag, since)) {
        if (skip.has(pid)) continue
        if (found.has(pid)) continue
        found.add(pid)
        walk(pid)
      }
    }
    this.members = new Map([...found].map((pid) => {
      const s = table.stats.get(pid)
      return [pid, { pid, startTime: s.startTime, pgrp: s.pgrp }]
    }))
    this.emptyAfterScan = this.members.size === 0
    return this.members.size
  }

  // Drops the members that have ended (or whose pid now names another process).
  async prune () {
    const gone = []
    await mapLimited([...this.members.values()], READ_CONCURRENCY, async (m) => {
      const now = await this.scanner.stat(m.pid)
      if (!now || now.startTime !== m.startTime) gone.push(m.pid)
    })
    for (const pid of gone) this.members.delete(pid)
    return this.members.size
  }

  // Sends `signal` to each member that has not had it yet, each only while its pid still has
  // the start time it was found with. groupSent: the leader's group got it already (members in
  // that group are not signalled twice: a second SIGINT means "hurry" to some programs).
  async signal (signal, { groupSent = false } = {}) {
    let sent = 0
    await mapLimited([...this.members.values()], READ_CONCURRENCY, async (m) => {
      const key = `${m.pid}@${m.startTime}`
      if (this.signalled.has(key)) return
      this.signalled.add(key)
      if (groupSent && this.group && m.pgrp === this.group) return
      if (await this.send(m, signal)) sent++
    })
    return sent
  }

  async send (m, signal) {
    const now = await this.scanner.stat(m.pid)
    if (!now || now.startTime !== m.startTime) return false
    try {
      this.kill(m.pid, signal)
      return true
    } catch {
      return false
    }
  }

  // Resolves true once every member has ended and a fresh read finds no new one; false at the
  // deadline. The leader is not waited for here (its exit is an event).
  async settled (ms) {
    const deadline = Date.now() + ms
    for (;;) {
      if (this.members.size === 0) {
        if (this.emptyAfterScan) return true
        await this.collect()
        continue
      }
      const left = deadline - Date.now()
      if (left <= 0) return false
      await sleep(Math.min(this.pollMs, left))
      if (await this.prune() === 0) this.emptyAfterScan = false
    }
  }

  // SIGKILL to all of it: the leader's group (fork mode) as long as one of our processes is
  // still in it, even after the leader itself has exited, and every member. Repeated until a
  // fresh read finds nothing (a member may fork between a read and its kill), within `ms`.
  async killAll (ms = 5000) {
    const deadline = Date.now() + ms
    for (;;) {
      await this.collect()
      if (this.members.size === 0) return true
      if (this.group && [...this.members.values()].some((m) => m.pgrp === this.group)) {
        try { this.kill(-this.group, 'SIGKILL') } catch {}
      }
      await mapLimited([...this.members.values()], READ_CONCURRENCY, (m) => this.send(m, 'SIGKILL'))
      while (await this.prune() > 0) {
        if (Date.now() >= deadline) return false
        await sleep(Math.min(this.pollMs, Math.max(1, deadline - Date.now())))
      }
      if (Date.now() >= deadline) return false
    }
  }

  pids () {
    return [...this.members.keys()].sort((a, b) => a - b)
  }
}

module.exports = { ProcessTree, createScanner, newTag, TAG_VAR, TREE_VAR, readTable, launchTagOf }
