'use strict'

// Which pids were handed out after a given one, without reading each process (Linux /proc).
// The kernel hands out pids in a cycle: the next free number after the last one, back to the
// bottom (300) after pid_max. So while fewer than a cycle's worth of pids were handed out since
// pid A, the pids handed out after A are exactly those in the window (A, last] (wrapped when last
// < A), where last is the latest pid handed out (/proc/loadavg, field 5). How many were handed out
// is bounded from above by the count of forks since boot (/proc/stat `processes`, every
// process and thread of the machine, every namespace): a count read before A was handed out,
// subtracted from one read now, over-counts, so the window is used only when it is sure.

const { readProcFile } = require('./proc-read')

const RESERVED_PIDS = 300 // the bottom of the cycle after a wrap (kernel/pid.c)
const FRESH_MS = 1000 // how old the shared count of forks may be before a launch refreshes it

// "processes 1233846" in /proc/stat → 1233846, or null
function parseForks (text) {
  const m = /^processes (\d+)$/m.exec(String(text))
  return m ? Number(m[1]) : null
}

// "0.20 0.18 0.12 1/80 11206" → 11206, or null
function parseLastPid (text) {
  const n = Number(String(text).trim().split(/\s+/)[4])
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

// Whether `pid` was handed out after `after`, the last one handed out being `last`.
function inWindow (pid, after, last) {
  return after <= last ? pid > after && pid <= last : pid > after || pid <= last
}

// Whether the window is sure: fewer forks since `forksThen` than pids in a cycle.
function windowHolds ({ forksThen, forksNow, pidMax }) {
  if (![forksThen, forksNow, pidMax].every(Number.isSafeInteger)) return false
  return forksNow - forksThen < pidMax - RESERVED_PIDS - 1
}

const readText = (file) => readProcFile(file).catch(() => '')
const readForks = async (procRoot = '/proc') => parseForks(await readText(`${procRoot}/stat`))

// The latest count of forks this process read, for a launch to note beside its pid: a count
// read before the spawn (the spawn and the note run in one synchronous turn), refreshed in the
// background when older than FRESH_MS. null until the first read ends.
const shared = { forks: null, at: 0, reading: null }
function forksSoFar ({ procRoot = '/proc', now = Date.now() } = {}) {
  if (now - shared.at > FRESH_MS && !shared.reading) {
    shared.reading = readForks(procRoot).then((n) => {
      if (n !== null) Object.assign(shared, { forks: n, at: Date.now() })
    }).finally(() => { shared.reading = null })
  }
  return shared.forks
}

// pid_max, read at most once a minute (an administrator may change it, rarely)
const pidMaxRead = { value: null, at: 0, root: null }
async function readPidMax (procRoot, now = Date.now()) {
  if (pidMaxRead.root !== procRoot || now - pidMaxRead.at > 60000) {
    const value = Number((await readText(`${procRoot}/sys/kernel/pid_max`)).trim()) || null
    Object.assign(pidMaxRead, { value, at: now, root: procRoot })
  }
  return pidMaxRead.value
}

// → (pid) => whether it was handed out after `after`, or null when that cannot be told.
async function pidsAfter (after, forksThen, { procRoot = '/proc' } = {}) {
  if (!after || forksThen === null || forksThen === undefined) return null
  // the last pid first: the count read after it covers every pid handed out up to it
  const [last, pidMax] = await Promise.all([readText(`${procRoot}/loadavg`).then(parseLastPid), readPidMax(procRoot)])
  const forksNow = await readForks(procRoot)
  if (forksNow !== null && forksNow >= shared.forks) Object.assign(shared, { forks: forksNow, at: Date.now() })
  if (last === null || !windowHolds({ forksThen, forksNow, pidMax })) return null
  return (pid) => inWindow(pid, after, last)
}

module.exports = { parseForks, parseLastPid, inWindow, windowHolds, forksSoFar, pidsAfter }
