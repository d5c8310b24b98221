'use strict'

// What the kernel says about processes, for the invariants of the overlap and concurrency tests
// (Linux /proc; elsewhere every list is empty). A zombie counts as gone: it has exited and only
// waits for its parent to reap it.

const fs = require('node:fs')

// { state, ppid } of a pid from /proc/<pid>/stat, or null when there is no such process.
function procStat (pid) {
  let text
  try { text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1') } catch { return null }
  // the command name (field 2) is in parentheses and may itself hold spaces or parentheses
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0], ppid: Number(fields[1]) }
}

function running (pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false
  const stat = procStat(pid)
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X'
}

function allPids () {
  let entries = []
  try { entries = fs.readdirSync('/proc') } catch { return [] }
  return entries.filter((e) => /^\d+$/.test(e)).map(Number)
}

// Live (non-zombie) children of `ppid`, sorted.
function childrenOf (ppid) {
  if (!ppid) return []
  return allPids().filter((pid) => {
    const stat = procStat(pid)
    return stat !== null && stat.ppid === ppid && stat.state !== 'Z' && stat.state !== 'X'
  }).sort((a, b) => a - b)
}

// Live processes (other than this one) whose initial environment holds every `KEY=value` given.
function pidsWithEnv (entries) {
  const found = []
  for (const pid of allPids()) {
    if (pid === process.pid) continue
    let environ
    try { environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1') } catch { continue }
    const vars = new Set(environ.split('\0'))
    if (entries.every((e) => vars.has(e)) && running(pid)) found.push(pid)
  }
  return found.sort((a, b) => a - b)
}

// Everything started with this XPM_HOME: the daemon, its workers, and any CLI still running.
function homePids (home) {
  return pidsWithEnv([`XPM_HOME=${home}`])
}

// The processes of one app of this XPM_HOME (the daemon sets XPM_APP_NAME for each worker).
function appPids (home, name) {
  return pidsWithEnv([`XPM_HOME=${home}`, `XPM_APP_NAME=${name}`])
}

// Remembers every pid that was ever a child of the daemon while it runs (polled), so a test can
// check afterwards that none of them outlived what should have ended it. daemonPid: a number or
// a function returning the current one. add(): pids seen elsewhere (list rows, reload steps).
function recordChildren (daemonPid, { interval = 40 } = {}) {
  const pids = new Set()
  const poll = () => {
    const pid = typeof daemonPid === 'function' ? daemonPid() : daemonPid
    for (const child of childrenOf(pid)) pids.add(child)
  }
  poll()
  const timer = setInterval(poll, interval)
  timer.unref()
  return {
    pids,
    poll,
    add (...more) { for (const p of more.flat()) if (p) pids.add(p) },
    stop () { clearInterval(timer); poll() },
    alive () { return [...pids].filter(running).sort((a, b) => a - b) }
  }
}

// "pid 123 (app api: node /path/app.js)", for failure messages.
function describeProc (pid) {
  let cmd = '?'
  let app = null
  try { cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ') } catch {}
  try { app = fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').find((v) => v.startsWith('XPM_APP_NAME='))?.slice(13) } catch {}
  return `pid ${pid} (${app ? `app ${app}: ` : ''}${cmd.slice(0, 160)})`
}

module.exports = { describeProc, procStat, running, childrenOf, pidsWithEnv, homePids, appPids, recordChildren }
