'use strict'

const { readProcStat } = require('../../lib/shared/proc-stat')
const { isWantedUp } = require('../model/predicates')

// What the daemon is asked to keep running: the intent (docs/architecture.md, "Intent"), never a
// status. An app being deleted is no longer defined; an instance being removed (scale down,
// delete of one process) is no longer part of its app; each other instance is wanted online or
// stopped as the last accepted command said. A restart, reload or start under way changes none
// of it, so a save, an update or a crash in the middle of one keeps what the user asked. An app
// being renamed is saved under its new name.
function desiredOf (instance) {
  return isWantedUp(instance) ? 'online' : 'stopped'
}

function appsSnapshot (supervisor) {
  const apps = []
  for (const app of supervisor.apps.values()) {
    if (app.deleting || app.deleted) continue
    apps.push({
      spec: { ...app.desiredSpec, instances: app.kept.length },
      listens: app.listens === true,
      instances: app.kept.map((inst) => ({ id: inst.id, index: inst.index, desired: desiredOf(inst), ...(inst.finished && !isWantedUp(inst) ? { finished: true } : {}) }))
    })
  }
  // a rename under way: the app under its new name, every instance wanted up (daemon/rename.js)
  for (const { spec, listens, slots } of supervisor.renaming?.values() ?? []) {
    if (!supervisor.apps.has(spec.name)) apps.push({ spec, listens: listens === true, instances: slots.map((s) => ({ id: s.id, index: s.index, desired: 'online' })) })
  }
  return apps
}

// The OS processes running now (a reload's spare and draining ones included), each with its start time, so that a later daemon can find the
// ones that outlived this one and stop exactly them.
async function processesSnapshot (supervisor, startTimes) {
  const live = supervisor.allInstances().flatMap((inst) => inst.processes().map((handle) => ({ inst, handle, pid: handle.pid })))
  const out = []
  for (const { inst, handle, pid } of live) {
    if (!pid) continue
    const startTime = await startTimes.of(pid, handle.launchStat)
    if (!startTime || handle.exited) continue
    out.push({ id: inst.id, name: inst.name, instance: inst.index, pid, startTime, mode: inst.spec.execMode, group: handle.groupLeader === true && inst.spec.treekill !== false })
  }
  startTimes.prune(new Set(live.map((p) => p.pid)))
  return out
}

// Start times by pid, read once per process. A pid counts only while its parent is this
// daemon: a child that already exited could have lent its pid to a stranger. noted: the stat the
// launcher read right after the spawn (handle.launchStat), used when it shows a live child of
// this daemon, instead of a second read of the same file.
class StartTimes {
  constructor ({ readStat = readProcStat, selfPid = process.pid } = {}) {
    this.readStat = readStat
    this.selfPid = selfPid
    this.cache = new Map()
  }

  async of (pid, noted = null) {
    if (this.cache.has(pid)) return this.cache.get(pid)
    const seen = noted ? await noted : null
    const stat = seen && seen.state !== 'Z' && seen.state !== 'X' ? seen : await this.readStat(pid)
    if (!stat || stat.ppid !== this.selfPid) return null
    this.cache.set(pid, stat.startTime)
    return stat.startTime
  }

  prune (livePids) {
    for (const pid of this.cache.keys()) if (!livePids.has(pid)) this.cache.delete(pid)
  }
}

module.exports = { appsSnapshot, processesSnapshot, desiredOf, StartTimes }
