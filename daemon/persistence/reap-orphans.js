'use strict'

const { setTimeout: sleep } = require('node:timers/promises')
const { readProcStat } = require('./proc-stat')

// After a daemon crash: processes of the previous daemon that are still running hold ports and
// would be duplicated by the restore. Cluster workers exit by themselves when their IPC channel
// to the primary closes; fork-mode children do not. Each saved process is stopped only while
// its pid still has the saved start time (never signal a reused pid): the stop signal to its
// process group, then SIGKILL after its kill timeout.
async function reapOrphans (records, {
  readStat = readProcStat,
  kill = (pid, signal) => process.kill(pid, signal),
  stopOptions = () => ({}),
  selfPid = process.pid,
  pollMs = 50,
  killWaitMs = 2000,
  logger = null
} = {}) {
  const found = []
  for (const rec of records) {
    if (rec.pid === selfPid) continue
    const stat = await readStat(rec.pid)
    if (stat && stat.startTime === rec.startTime) found.push({ rec, stat })
  }
  return Promise.all(found.map(({ rec, stat }) => reapOne(rec, stat, { readStat, kill, stopOptions, pollMs, killWaitMs, logger })))
}

async function reapOne (rec, stat, { readStat, kill, stopOptions, pollMs, killWaitMs, logger }) {
  const { killSignal = 'SIGTERM', killTimeout = 5000 } = stopOptions(rec)
  const target = rec.group && stat.pgrp === rec.pid ? -rec.pid : rec.pid
  const same = async () => {
    const now = await readStat(rec.pid)
    return Boolean(now && now.startTime === rec.startTime)
  }
  const signal = async (sig) => {
    if (!(await same())) return false
    try {
      kill(target, sig)
      return true
    } catch (err) {
      if (err.code === 'ESRCH') return false
      throw err
    }
  }
  const gone = async (ms) => {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      if (!(await same())) return true
      await sleep(pollMs) // polling /proc for the exit of a process that is not our child
    }
    return !(await same())
  }
  logger?.warn({ event: 'orphan', app: rec.name, processPid: rec.pid, signal: killSignal }, `${rec.name}[${rec.instance ?? '?'}] (pid ${rec.pid}) outlived the previous daemon: stopping it`)
  if (!(await signal(killSignal)) || (await gone(killTimeout))) return { ...rec, outcome: 'stopped' }
  await signal('SIGKILL')
  const outcome = (await gone(killWaitMs)) ? 'killed' : 'survived'
  if (outcome === 'survived') logger?.error({ event: 'orphan', app: rec.name, processPid: rec.pid }, `pid ${rec.pid} survived SIGKILL`)
  return { ...rec, outcome }
}

module.exports = { reapOrphans }
