'use strict'

const { readProcStat } = require('./proc-stat')

// What the daemon is asked to keep running, read from the supervisor. An instance that runs,
// starts, waits to restart or crash-loops ('errored') is wanted online; a stopped or stopping
// one is wanted stopped. `pending` overrides that for instances registered by a restore but
// not started yet, so a crash in the middle of a restore loses nothing.
const WANTED_ONLINE = new Set(['launching', 'online', 'waiting restart', 'errored'])

function desiredOf (status) {
  return WANTED_ONLINE.has(status) ? 'online' : 'stopped'
}

function appsSnapshot (supervisor, pending = new Map()) {
  const apps = []
  for (const app of supervisor.apps.values()) {
    apps.push({
      spec: app.spec,
      listens: app.listens === true,
      instances: app.instances.map((inst) => ({ id: inst.id, index: inst.index, desired: pending.get(inst) ?? desiredOf(inst.status) }))
    })
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
    const startTime = await startTimes.of(pid)
    if (!startTime || handle.exited) continue
    out.push({ id: inst.id, name: inst.name, instance: inst.index, pid, startTime, mode: inst.spec.execMode, group: handle.groupLeader === true })
  }
  startTimes.prune(new Set(live.map((p) => p.pid)))
  return out
}

// Start times by pid, read once per process. A pid counts only while its parent is this
// daemon: a child that already exited could have lent its pid to a stranger.
class StartTimes {
  constructor ({ readStat = readProcStat, selfPid = process.pid } = {}) {
    this.readStat = readStat
    this.selfPid = selfPid
    this.cache = new Map()
  }

  async of (pid) {
    if (this.cache.has(pid)) return this.cache.get(pid)
    const stat = await this.readStat(pid)
    if (!stat || stat.ppid !== this.selfPid) return null
    this.cache.set(pid, stat.startTime)
    return stat.startTime
  }

  prune (livePids) {
    for (const pid of this.cache.keys()) if (!livePids.has(pid)) this.cache.delete(pid)
  }
}

module.exports = { appsSnapshot, processesSnapshot, desiredOf, StartTimes }
