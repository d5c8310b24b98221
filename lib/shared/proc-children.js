'use strict'

// Parent → child links from /proc (Linux): /proc/<pid>/task/<tid>/children lists the children
// each thread of a process forked or adopted, so one process's children cost a readdir of its
// threads and one small read per thread, whatever else the machine runs. The file needs
// CONFIG_PROC_CHILDREN (on in every mainstream kernel); readChildren says when it is missing, so
// a caller falls back to a read of the whole process table.

const fsp = require('node:fs/promises')
const { parseStat, readProcStat } = require('./proc-stat')
const { readProcFile } = require('./proc-read')

// "12 345 " → [12, 345]
function parseChildren (text) {
  const out = []
  for (const word of String(text).split(/\s+/)) {
    if (/^\d+$/.test(word)) out.push(Number(word))
  }
  return out
}

// The children of pid: [pid], [] when it has none or is gone, null when this kernel has no
// children files (the task is there, its children file is not).
async function readChildren (pid, { procRoot = '/proc' } = {}) {
  let tids
  try {
    tids = await fsp.readdir(`${procRoot}/${pid}/task`)
  } catch {
    return []
  }
  const lists = await Promise.all(tids.map((tid) => readProcFile(`${procRoot}/${pid}/task/${tid}/children`)
    .then(parseChildren, (err) => (err.code === 'ENOENT' && tids.length ? 'missing' : []))))
  if (lists.length && lists.every((l) => l === 'missing')) return null
  return [...new Set(lists.flatMap((l) => (l === 'missing' ? [] : l)))]
}

// What pid adopted, without a read per thread: the kernel hands an orphan to one thread of its
// new parent (kernel/exit.c: the pid namespace's child reaper, or the first live thread of a
// subreaper: find_alive_thread, Linux 4.0 on; Node 20 needs 4.18), which is the thread group's
// leader while the leader lives. So when the leader is
// still alive after its own children file was read, that file holds every orphan pid adopted;
// otherwise (the leader exited, or its files cannot be read) every thread is read. The other
// threads' own forks are left out: they are no orphans. Same answers as readChildren.
async function readAdopted (pid, { procRoot = '/proc' } = {}) {
  const leader = `${procRoot}/${pid}/task/${pid}`
  const kids = await readProcFile(`${leader}/children`).then(parseChildren, () => null)
  if (kids === null) return readChildren(pid, { procRoot })
  const stat = await readProcFile(`${leader}/stat`).then(parseStat, () => null)
  return leaderLives(stat) ? kids : readChildren(pid, { procRoot })
}

// PF_EXITING: the thread began to exit, and no orphan is handed to it any more. A leader seen
// alive and not exiting after its children file was read was so while the file was read.
const PF_EXITING = 0x4
const leaderLives = (stat) => Boolean(stat) && !['Z', 'X'].includes(stat.state) && Number.isSafeInteger(stat.flags) && !(stat.flags & PF_EXITING)

// pid and its ancestors by parent links, nearest first, up to the top of the pid namespace
// (pid 1, not read: its parent is outside; bounded: a chain longer than `max` is cut, which
// only makes a caller look at fewer places).
async function ancestry (pid, { procRoot = '/proc', max = 64 } = {}) {
  const chain = [pid]
  let ppid = pid === 1 ? 0 : (await readProcStat(pid, { procRoot }))?.ppid ?? 0
  while (ppid > 0 && chain.length < max && !chain.includes(ppid)) {
    chain.push(ppid)
    ppid = ppid === 1 ? 0 : (await readProcStat(ppid, { procRoot }))?.ppid ?? 0
  }
  return chain
}

module.exports = { parseChildren, readChildren, readAdopted, leaderLives, ancestry }
