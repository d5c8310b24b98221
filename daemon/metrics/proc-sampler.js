'use strict'

// CPU time and resident memory of a pid, read from the OS. Linux reads /proc (two small async
// reads per pid); other platforms ask `ps`. Never sync I/O: the daemon is the cluster primary.
const fs = require('node:fs/promises')
const { execFile } = require('node:child_process')

const DEFAULT_CLK_TCK = 100 // sysconf(_SC_CLK_TCK) is 100 on every mainstream Linux build

// /proc/<pid>/stat: "pid (comm) state ppid ...". comm may hold spaces and parentheses, so fields
// are counted from the last ')'. After it, index 0 is field 3 (state).
function parseStat (text) {
  const close = text.lastIndexOf(')')
  if (close === -1) return null
  const fields = text.slice(close + 2).split(' ')
  const utime = Number(fields[14 - 3])
  const stime = Number(fields[15 - 3])
  const startTime = Number(fields[22 - 3])
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null
  return { ticks: utime + stime, startTime }
}

// VmRSS from /proc/<pid>/status, in bytes (the kernel writes kB). Absent for zombies.
function parseVmRss (text) {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(text)
  return match ? Number(match[1]) * 1024 : 0
}

// Percent of one core used between two readings of cumulative CPU ticks.
function cpuPercent (prevTicks, curTicks, elapsedMs, clkTck = DEFAULT_CLK_TCK) {
  if (!(elapsedMs > 0) || curTicks < prevTicks) return 0
  return ((curTicks - prevTicks) / clkTck) * 1000 / elapsedMs * 100
}

// `ps -o pcpu=,rss=` → { cpu, rss }: pcpu is the OS's own figure (a decaying average on macOS).
function parsePs (text) {
  const [pcpu, rss] = text.trim().split(/\s+/).map(Number)
  if (!Number.isFinite(pcpu) || !Number.isFinite(rss)) return null
  return { cpu: pcpu, rss: rss * 1024 }
}

function isGone (err) {
  return err.code === 'ENOENT' || err.code === 'ESRCH'
}

function run (file, args) {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 5000 }, (err, stdout) => resolve(err ? null : stdout))
  })
}

// sample(pid) → { ticks, startTime, rss } on Linux, { cpu, rss } elsewhere, null if the pid is gone.
function createProcSampler ({ platform = process.platform, clkTck = DEFAULT_CLK_TCK, procRoot = '/proc' } = {}) {
  if (platform !== 'linux') {
    return {
      clkTck,
      async sample (pid) {
        const out = await run('ps', ['-o', 'pcpu=,rss=', '-p', String(pid)])
        return out ? parsePs(out) : null
      }
    }
  }
  return {
    clkTck,
    async sample (pid) {
      try {
        const [stat, status] = await Promise.all([
          fs.readFile(`${procRoot}/${pid}/stat`, 'utf8'),
          fs.readFile(`${procRoot}/${pid}/status`, 'utf8')
        ])
        const parsed = parseStat(stat)
        return parsed && { ...parsed, rss: parseVmRss(status) }
      } catch (err) {
        if (isGone(err)) return null
        throw err
      }
    }
  }
}

// When the pid's process started: clock ticks since boot on Linux, the `ps -o lstart=` text
// elsewhere; null if it is gone. Compared before signalling a pid, so a reused pid is not hit.
async function readStartTime (pid, { platform = process.platform, procRoot = '/proc' } = {}) {
  if (platform !== 'linux') {
    const out = await run('ps', ['-o', 'lstart=', '-p', String(pid)])
    return out ? out.trim() || null : null
  }
  try {
    return parseStat(await fs.readFile(`${procRoot}/${pid}/stat`, 'utf8'))?.startTime ?? null
  } catch (err) {
    if (isGone(err)) return null
    throw err
  }
}

module.exports = { createProcSampler, readStartTime, cpuPercent, parseStat, parseVmRss, parsePs, DEFAULT_CLK_TCK }
