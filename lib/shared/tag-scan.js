'use strict'

// Finding and ending processes by their tree tag (lib/shared/tree-tag.js), for the daemon (the leftovers
// of a launch, everything a crashed daemon left) and for the CLI (`xpm kill` with no daemon
// answering). Linux /proc; elsewhere nothing is found.
//
// Nothing here runs on a timer of its own: /proc is read when someone asks, with a bounded
// number of reads in flight, and one read is shared by every caller that asks while it runs.
// A pid is only signalled while it still has the start time it was found with (/proc/<pid>/stat
// field 22): a pid the kernel handed to another process meanwhile is never hit.

const fsp = require('node:fs/promises')
const { setTimeout: sleep } = require('node:timers/promises')
const { readProcStat } = require('./proc-stat')
const { readProcFile } = require('./proc-read')
const { mapLimited } = require('./map-limited')
const { TREE_VAR, LAUNCH_VAR, homeId, tagsOfEnviron, matches } = require('./tree-tag')

const READ_CONCURRENCY = 16 // /proc reads in flight at once: the thread pool also writes the logs
const POLL_MS = 50 // how often the exit of a process that is not our child is checked
const KILL_WAIT_MS = 2000 // after SIGKILL, how long a process may take to be gone

const readLiveStat = (procRoot, pid) => readProcStat(pid, { procRoot })

// Every live process whose environment carries a tag: [{ pid, ppid, pgrp, startTime, tree, launch }].
async function readTagged (procRoot) {
  let names
  try {
    names = await fsp.readdir(procRoot)
  } catch {
    return []
  }
  return readTaggedOf(procRoot, names.filter((n) => /^\d+$/.test(n)))
}

// The same, of the given pids only (daemon/launchers/leftover-scan.js: the few candidates of a sweep).
async function readTaggedOf (procRoot, pids) {
  const found = []
  const needles = [TREE_VAR + '=', LAUNCH_VAR + '=']
  await mapLimited(pids, READ_CONCURRENCY, async (name) => {
    let environ
    try {
      environ = await readProcFile(`${procRoot}/${name}/environ`)
    } catch {
      return // gone, or another user's
    }
    if (!needles.some((n) => environ.includes(n))) return
    const stat = await readLiveStat(procRoot, name)
    if (!stat) return
    found.push({ pid: Number(name), ppid: stat.ppid, pgrp: stat.pgrp, startTime: stat.startTime, ...tagsOfEnviron(environ) })
  })
  return found.sort((a, b) => a.pid - b.pid)
}

// Reads shared: a caller that asks while a read is under way gets that read.
function createTagScanner ({ procRoot = '/proc' } = {}) {
  let pending = null
  return {
    procRoot,
    tagged () {
      if (!pending) pending = readTagged(procRoot).finally(() => { pending = null })
      return pending
    },
    stat: (pid) => readLiveStat(procRoot, pid)
  }
}

const defaultScanner = createTagScanner()

// The query of findTagged/endTagged as tree-tag.js matches it: { home } is a path (hashed here).
function toMatch ({ home, app, instance, launch, tree }) {
  return { ...(home !== undefined ? { homeId: homeId(home) } : {}), app, instance, launch, tree }
}

// Live processes carrying the tag of a home (and app, instance), of one instance ({ tree }: its
// whole tree tag), or of one launch. exclude:
// pids never returned (this process is never returned).
async function findTagged (query, { scanner = defaultScanner, exclude = [], selfPid = process.pid } = {}) {
  const match = toMatch(query)
  const skip = new Set([selfPid, ...exclude])
  return (await scanner.tagged()).filter((p) => !skip.has(p.pid) && matches(p, match))
}

// Ends processes: the stop signal to each, SIGKILL to those still there after killTimeout, and
// again a read of the tag (something may have forked meanwhile) until none is left or the
// rounds run out. options(p) may give { killSignal, killTimeout } per process; resume: SIGCONT
// before the stop signal (a stopped process acts on nothing else).
// → { signalled: [pid], killed: [pid], survived: [pid] } (killed: needed SIGKILL).
async function endTagged (query, {
  scanner = defaultScanner,
  kill = (pid, sig) => process.kill(pid, sig),
  killSignal = 'SIGTERM',
  killTimeout = 5000,
  options = () => ({}),
  exclude = [],
  selfPid = process.pid,
  pollMs = POLL_MS,
  killWaitMs = KILL_WAIT_MS,
  rounds = 3,
  resume = false,
  filter = () => true
} = {}) {
  const signalled = new Set()
  const killed = new Set()
  const find = async () => (await findTagged(query, { scanner, exclude, selfPid })).filter(filter)
  let left = []
  for (let round = 0; round < rounds; round++) {
    const procs = await find()
    const fresh = procs.filter((p) => !signalled.has(key(p)))
    left = procs.filter((p) => signalled.has(key(p)))
    if (!fresh.length) break
    left = await endProcesses(fresh, { scanner, kill, pollMs, killWaitMs, optionsFor: (p) => ({ killSignal, killTimeout, ...options(p) }), resume, signalled, killed })
  }
  if (left.length) left = await find() // what is there now, after the last round
  const survived = left.map((p) => p.pid)
  const pid = (k) => Number(k.split('@')[0])
  return { signalled: [...signalled].map(pid), killed: [...killed].map(pid), survived }
}

const key = (p) => `${p.pid}@${p.startTime}`

// One round: the stop signal to each (SIGCONT first with `resume`, for a stopped process),
// then one wait for all of them, each up to its own kill timeout; SIGKILL to what is left, and
// a last wait. → the processes still there.
async function endProcesses (procs, { scanner, kill, pollMs, killWaitMs, optionsFor, resume, signalled, killed }) {
  const same = async (p) => (await scanner.stat(p.pid))?.startTime === p.startTime
  const send = async (p, sig) => {
    if (!(await same(p))) return false
    try {
      kill(p.pid, sig)
      return true
    } catch {
      return false
    }
  }
  // polls /proc (these are not our children: no exit event) until each is gone or its deadline
  const waitGone = async (list, deadlineOf) => {
    let alive = list
    for (;;) {
      const still = []
      await mapLimited(alive, READ_CONCURRENCY, async (p) => { if (await same(p)) still.push(p) })
      alive = still
      const now = Date.now()
      if (!alive.length || alive.every((p) => now >= deadlineOf(p))) return alive
      const next = Math.min(...alive.map(deadlineOf)) - now
      await sleep(Math.max(1, Math.min(pollMs, next)))
    }
  }
  const start = Date.now()
  const deadlines = new Map()
  await mapLimited(procs, READ_CONCURRENCY, async (p) => {
    const { killSignal, killTimeout } = optionsFor(p)
    signalled.add(key(p))
    deadlines.set(p, start + killTimeout)
    if (resume) await send(p, 'SIGCONT')
    await send(p, killSignal)
  })
  const stubborn = await waitGone(procs, (p) => deadlines.get(p))
  if (!stubborn.length) return []
  await mapLimited(stubborn, READ_CONCURRENCY, async (p) => {
    if (await send(p, 'SIGKILL')) killed.add(key(p))
  })
  const end = Date.now() + killWaitMs
  return waitGone(stubborn, () => end)
}

module.exports = { createTagScanner, findTagged, endTagged, readTagged, readTaggedOf }
