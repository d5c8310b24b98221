'use strict'

// The sweep after an exit xpm did not ask for (handle.js), without reading the whole machine.
// What a launch left behind descends from its process, and a process's parent link only ever
// points at one of its ancestors: its real parent, or, once that has exited, the nearest
// ancestor that adopts orphans (a subreaper, or the init of the pid namespace). The launch's
// ancestors are the daemon and the daemon's own ancestors; the daemon adopts nothing (Node never
// makes itself a subreaper) unless it is the namespace's init (xpm-runtime as pid 1). So every
// leftover is found below the daemon's ancestors (and the daemon as init), through a child of
// one of them that started no earlier than the launch, and its descendants:
//   1. the daemon's ancestry by /proc/<pid>/stat (a few reads),
//   2. what those adopted (/proc/<pid>/task/<pid>/children while the leader thread lives, every
//      thread's otherwise: lib/shared/proc-children.js readAdopted); of these, the pids handed out after
//      the launch's (lib/shared/pid-window.js; all of them when that cannot be told), and of
//      those, by one stat each (/proc/<pid>/stat field 22), the ones started since the launch,
//   3. their descendants, by the same children files,
//   4. the environment only of what is left (lib/shared/tag-scan.js matches the tags as before).
// The cost follows what the launch left and what init adopted since, not how many processes
// the host runs (below its services, or adopted by init before the launch). Leftovers of an earlier launch of the same
// slot are older than this launch: a sweep that left a survivor keeps its own start time as the
// floor of that slot's next sweeps, until one of them ends with nothing left.
// Without children files (a kernel without CONFIG_PROC_CHILDREN) the whole table is read.

const { readProcFile } = require('../../lib/shared/proc-read')
const { parseStat, readProcStat } = require('../../lib/shared/proc-stat')
const { readChildren, readAdopted, ancestry } = require('../../lib/shared/proc-children')
const { readTagged, readTaggedOf, endTagged } = require('../../lib/shared/tag-scan')
const { mapLimited } = require('../../lib/shared/map-limited')
const { forksSoFar, pidsAfter } = require('../../lib/shared/pid-window')

const READ_CONCURRENCY = 16 // /proc reads in flight at once: the thread pool also writes the logs

// A process's stat, zombies included (a launch that crashed at once may be one when it is looked
// at), or null.
async function readAnyStat (pid, procRoot = '/proc') {
  try {
    return parseStat(await readProcFile(`${procRoot}/${pid}/stat`))
  } catch {
    return null
  }
}

// A process's start time in clock ticks since boot, zombies included, or null.
async function readStartTime (pid, procRoot = '/proc') {
  const stat = await readAnyStat(pid, procRoot)
  return stat ? Number(stat.startTime) : null
}

const MAX_FLOORS = 1000

// Pure: of the adopted children, those started at or after `since` (one with no start time read is gone).
function recentOf (pids, startOf, since) {
  return pids.filter((pid) => {
    const start = startOf.get(pid)
    return start !== null && start !== undefined && start >= since
  })
}

// The pids a launch started at `since` may have left (steps 1-3 above), or null without
// children files. windowOf(): a promise of after(pid), whether a pid was handed out after the
// launch's (lib/shared/pid-window.js), or of null when that cannot be told; asked only when more
// than WINDOW_FROM children were adopted (below that, their stats cost less than its reads).
const WINDOW_FROM = 2
async function candidates ({ since, windowOf = async () => null, procRoot, selfPid, settled = new Map() }) {
  const chain = await daemonAncestry(selfPid, procRoot, settled)
  const adopters = chain.length > 1 ? chain.slice(1) : chain
  const seen = new Set(chain)
  let top = []
  for (const pid of adopters) {
    const kids = await readAdopted(pid, { procRoot })
    if (kids === null) return null
    for (const kid of kids) if (!seen.has(kid)) { seen.add(kid); top.push(kid) }
  }
  const after = top.length > WINDOW_FROM ? await windowOf() : null
  if (after) top = top.filter(after)
  const startOf = new Map()
  await mapLimited(top, READ_CONCURRENCY, async (pid) => { startOf.set(pid, await readStartTime(pid, procRoot)) })
  const found = []
  let level = recentOf(top, startOf, since)
  while (level.length) {
    found.push(...level)
    const next = []
    await mapLimited(level, READ_CONCURRENCY, async (pid) => {
      for (const kid of (await readChildren(pid, { procRoot })) || []) if (!seen.has(kid)) { seen.add(kid); next.push(kid) }
    })
    level = next
  }
  return found
}

// The daemon's ancestry; once it is [daemon, 1] it stays so (init never exits), and is not read
// again (settled: `${procRoot} ${pid}` → [pid, 1], the scan's cache).
async function daemonAncestry (pid, procRoot, settled) {
  const key = `${procRoot} ${pid}`
  if (settled.has(key)) return settled.get(key)
  const chain = await ancestry(pid, { procRoot })
  if (chain.length === 2 && chain[1] === 1) settled.set(key, chain)
  return chain
}

// A scanner for endTagged (lib/shared/tag-scan.js) that reads only the candidates of a launch.
// since: the launch's start time; launch: { pid, forks } as noted (or null). Either may be a promise.
function leftoverScanner ({ since, launch = null, procRoot = '/proc', selfPid = process.pid, settled }) {
  return {
    procRoot,
    async tagged () {
      const { pid, forks } = (await launch) || {}
      const windowOf = () => pidsAfter(pid, forks, { procRoot })
      const pids = await candidates({ since: await since, windowOf, procRoot, selfPid, settled })
      return pids === null ? readTagged(procRoot) : readTaggedOf(procRoot, pids)
    },
    stat: (pid) => readProcStat(pid, { procRoot })
  }
}

// One daemon's sweeps (made by createLaunchers, no module state). liveLaunches: the launch tags
// whose process has not exited (launchers/index.js).
function createLeftoverScan ({ liveLaunches = new Set() } = {}) {
  const launches = new Map() // launch tag → { pid, start: promise of its start time, forks: the count of forks before it }
  const floors = new Map() // tree tag → the start time of the oldest launch of the slot whose sweep left a survivor
  const settled = new Map() // the daemon's ancestry once it is settled (daemonAncestry)
  let selfStart = null

  // A launcher's note, right after the spawn: the launch's start time, read while it is there.
  // Kept until the sweep of its exit takes it; the notes of launches that ended otherwise (a
  // stop) are dropped once they outnumber the live launches. → a promise of the launch's stat
  // (or null), which the launcher hands on (persistence/snapshot.js needs the same start time).
  function noteLaunch (tag, pid, { procRoot = '/proc' } = {}) {
    if (!tag || !pid) return null
    if (launches.size >= 2 * liveLaunches.size + 64) {
      for (const t of launches.keys()) if (!liveLaunches.has(t)) launches.delete(t)
    }
    const stat = readAnyStat(pid, procRoot)
    launches.set(tag, { pid, forks: forksSoFar({ procRoot }), start: stat.then((s) => (s ? Number(s.startTime) : null)) })
    return stat
  }

  // The oldest start a sweep of `launch` (of slot `tree`) must look from: its own start, or the
  // daemon's when that was not read, or the slot's floor when older (then the pid window of the
  // launch does not hold for what is looked for: window false).
  async function sinceOf (noted, tree, procRoot) {
    let since = noted ? await noted.start : null
    if (since === null) {
      selfStart ??= readStartTime('self', procRoot)
      since = (await selfStart) ?? 0
    }
    const floor = tree ? floors.get(tree) : undefined
    return floor !== undefined && floor < since ? { since: floor, window: false } : { since, window: true }
  }

  // endTagged(query, options) for the leftovers of one launch, reading only its candidates.
  // launch: its launch tag (the start time noted by noteLaunch).
  function endLeftovers (query, { launch, procRoot = '/proc', selfPid = process.pid, ...options } = {}) {
    const noted = launches.get(launch)
    launches.delete(launch)
    const from = sinceOf(noted, query.tree, procRoot)
    const since = from.then((f) => f.since)
    const scanner = leftoverScanner({ since, launch: from.then((f) => (f.window ? noted : null)), procRoot, selfPid, settled })
    const floor = async (left) => {
      if (!query.tree) return
      if (!left) return floors.delete(query.tree)
      floors.set(query.tree, await since)
      // bounded: past MAX_FLOORS slots the oldest note goes (what it kept looking for outlived a
      // SIGKILL: a process no sweep can end)
      if (floors.size > MAX_FLOORS) floors.delete(floors.keys().next().value)
    }
    return endTagged(query, { ...options, scanner, selfPid }).then(async (report) => {
      await floor(report.survived.length > 0)
      return report
    }, async (err) => {
      await floor(true)
      throw err
    })
  }

  return { noteLaunch, endLeftovers, notes: () => launches.size }
}

module.exports = { createLeftoverScan, leftoverScanner, candidates, recentOf, readStartTime }
