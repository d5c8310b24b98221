'use strict'

const { setTimeout: sleep } = require('node:timers/promises')
const { readProcStat } = require('../../lib/shared/proc-stat')
const { endTagged } = require('../../lib/shared/tag-scan')
const { parseTreeTag, launchOwner } = require('../../lib/shared/tree-tag')

// At start-up, before anything is restored: processes of a previous daemon that are still
// running hold ports and would be duplicated by the restore. Cluster workers exit by themselves
// when their IPC channel to the primary closes; fork-mode children do not, and what either
// started survives both (handed to init). Two ways to find them, both run at once:
//  - the processes the previous daemon recorded (state.json): each is stopped only while its
//    pid still has the saved start time (never signal a reused pid): the stop signal to its
//    process group, then SIGKILL after its kill timeout;
//  - with `home`: every process carrying the home's tree tag (lib/shared/tree-tag.js) — the previous
//    daemon's apps and everything they started, recorded or not — but this daemon's own
//    launches, and the descendants of an app with `treekill: false` (specOf(name) says, and
//    their XPM_UNTRACKED mark once the app is gone).
// Resolves (awaitable by a recovery phase) once all of them have ended or survived SIGKILL:
// [{ pid, name, instance, outcome: 'stopped' | 'killed' | 'survived', tagged? }].
async function reapOrphans (records, options = {}) {
  const { home = null, specOf = () => null, stopOptions = () => ({}), selfPid = process.pid, logger = null } = options
  const recorded = reapRecorded(records, options)
  if (!home) return recorded
  const exclude = records.map((r) => r.pid)
  const tagged = endTagged({ home }, {
    exclude,
    selfPid,
    filter: (p) => !p.untracked && launchOwner(p.launch) !== selfPid && specOf(parseTreeTag(p.tree)?.app)?.treekill !== false,
    options: (p) => stopOptions({ name: parseTreeTag(p.tree)?.app }),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.scanner ? { scanner: options.scanner } : {}),
    ...(options.kill ? { kill: options.kill } : {})
  }).catch((err) => {
    logger?.error({ event: 'orphan', err }, `looking for processes with this home's tree tag failed: ${err.message}`)
    return { signalled: [], killed: [], survived: [] }
  })
  const [fromRecords, report] = await Promise.all([recorded, tagged])
  const outcome = (pid) => report.survived.includes(pid) ? 'survived' : report.killed.includes(pid) ? 'killed' : 'stopped'
  if (report.signalled.length) {
    logger?.warn({ event: 'orphan', tagged: report }, `ended ${report.signalled.length - report.survived.length} process(es) carrying this home's tree tag, left by a previous daemon or its apps`)
  }
  if (report.survived.length) logger?.error({ event: 'orphan', survived: report.survived }, `pid(s) ${report.survived.join(', ')} survived SIGKILL`)
  return [...fromRecords, ...report.signalled.map((pid) => ({ pid, name: null, tagged: true, outcome: outcome(pid) }))]
}

async function reapRecorded (records, {
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
