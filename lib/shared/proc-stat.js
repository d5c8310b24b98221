'use strict'

// Who a pid is, from /proc/<pid>/stat (Linux): its state, parent, process group and start time
// (field 22, clock ticks since boot, as the kernel's string). A pid and its start time together
// name one process for the life of the machine, so a pid the kernel reused is never mistaken for
// an app's. Also what daemon/metrics samples: CPU ticks (utime + stime, fields 14 and 15) and
// resident pages (field 24: the same count as VmRSS in /proc/<pid>/status, what `ps` shows).
// The one parser of that file.

const { readProcFile } = require('./proc-read')

// The command name (field 2) is in parentheses and may itself hold spaces and parentheses:
// the fields that follow start after the last ')'.
function parseStat (text) {
  const close = String(text).lastIndexOf(')')
  if (close === -1) return null
  const rest = text.slice(close + 2).trim().split(/\s+/)
  // rest[0] is field 3 (state): field n is rest[n - 3]
  if (rest.length < 20) return null
  const ticks = Number(rest[14 - 3]) + Number(rest[15 - 3])
  const rssPages = Number(rest[24 - 3])
  return {
    state: rest[0],
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    flags: Number(rest[9 - 3]), // the kernel's PF_* bits (include/linux/sched.h)
    startTime: rest[19],
    ticks: Number.isFinite(ticks) ? ticks : null,
    rssPages: Number.isFinite(rssPages) ? rssPages : 0
  }
}

// null when the pid does not exist, is a zombie, or /proc is not there. procRoot: a fake /proc
// in tests; fs: a fake fs.promises in tests. latin1: the command name is bytes, not necessarily
// UTF-8, and only ')' matters.
async function readProcStat (pid, { fs, procRoot = '/proc' } = {}) {
  let text
  try {
    const file = `${procRoot}/${pid}/stat`
    text = await (fs ? fs.readFile(file, 'latin1') : readProcFile(file))
  } catch {
    return null
  }
  const stat = parseStat(text)
  if (!stat || stat.state === 'Z' || stat.state === 'X') return null
  return stat
}

module.exports = { parseStat, readProcStat }
