'use strict'

// CPU time and resident memory of a pid, read from the OS. Linux reads one small file per pid,
// /proc/<pid>/stat (CPU ticks, start time and resident pages), with open/read/close on the
// thread pool; other platforms ask `ps`. Never sync I/O: the daemon is the cluster primary.
// How many pids are read at once is the caller's business (daemon/metrics/index.js batches).
const fs = require('node:fs')
const { execFile } = require('node:child_process')
const { parseStat } = require('../../lib/shared/proc-stat') // ticks, start time, rss pages
const { readProcFile } = require('../../lib/shared/proc-read')

const DEFAULT_CLK_TCK = 100 // sysconf(_SC_CLK_TCK) is 100 on every mainstream Linux build
const DEFAULT_PAGE_SIZE = 4096
const STAT_BYTES = 1024 // a stat line is about 300 bytes; a longer one is read again in full

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

// The kernel's page size, without sync I/O or a child process: process.memoryUsage.rss() is this
// process's stat rss field times the page size, so the two, read back to back, give it (rounded
// to a power of two, which absorbs the pages touched in between).
async function detectPageSize (procRoot = '/proc') {
  try {
    const pages = parseStat(await readProcFile(`${procRoot}/self/stat`))?.rssPages
    const bytes = process.memoryUsage.rss()
    if (!(pages > 0)) return DEFAULT_PAGE_SIZE
    const size = 2 ** Math.round(Math.log2(bytes / pages))
    return size >= 4096 && size <= 65536 ? size : DEFAULT_PAGE_SIZE
  } catch {
    return DEFAULT_PAGE_SIZE
  }
}

// The stat file of each sampled pid stays open, and each sample reads it again from offset 0
// (one trip through the thread pool instead of open, read and close: a third of the CPU a round
// costs). /proc serves a fresh line on every read; once the process is gone, reading the open
// file fails with ESRCH, even when the pid has been reused, so a reused pid is never misread.
// forget(pid) closes it (after a read under way); a gone pid's file is closed by its next read.
function createStatFiles (procRoot) {
  const files = new Map() // pid → { fd: Promise<number>, reading, forgotten }

  function entryFor (pid) {
    let entry = files.get(pid)
    if (!entry) {
      entry = { fd: openFile(`${procRoot}/${pid}/stat`), reading: 0, forgotten: false }
      entry.fd.catch(() => {})
      files.set(pid, entry)
    }
    return entry
  }

  function close (entry) {
    entry.fd.then((fd) => fs.close(fd, () => {}), () => {})
  }

  function forget (pid) {
    const entry = files.get(pid)
    if (!entry) return
    files.delete(pid)
    entry.forgotten = true
    if (entry.reading === 0) close(entry)
  }

  async function read (pid) {
    const entry = entryFor(pid)
    entry.reading++
    try {
      return await readAt(await entry.fd, `${procRoot}/${pid}/stat`)
    } catch (err) {
      if (files.get(pid) === entry) files.delete(pid)
      entry.forgotten = true
      throw err
    } finally {
      if (--entry.reading === 0 && entry.forgotten) close(entry)
    }
  }

  return { read, forget, get size () { return files.size } }
}

function openFile (file) {
  return new Promise((resolve, reject) => fs.open(file, 'r', (err, fd) => err ? reject(err) : resolve(fd)))
}

// The text of an open /proc file from its start; a longer one than `size` is read again in full.
function readAt (fd, file, size = STAT_BYTES) {
  return new Promise((resolve, reject) => {
    const buf = Buffer.allocUnsafe(size)
    fs.read(fd, buf, 0, size, 0, (err, bytes) => {
      if (err) return reject(err)
      if (bytes === size) return fs.readFile(file, 'latin1', (e, text) => e ? reject(e) : resolve(text))
      resolve(buf.toString('latin1', 0, bytes))
    })
  })
}

// sample(pid) → { ticks, startTime, rss } on Linux, { cpu, rss } elsewhere, null if the pid is gone.
// forget(pid): the pid is no longer sampled (closes what sampling it keeps open).
function createProcSampler ({ platform = process.platform, clkTck = DEFAULT_CLK_TCK, procRoot = '/proc', pageSize = null } = {}) {
  if (platform !== 'linux') {
    return {
      clkTck,
      async sample (pid) {
        const out = await run('ps', ['-o', 'pcpu=,rss=', '-p', String(pid)])
        return out ? parsePs(out) : null
      },
      forget () {}
    }
  }
  let page = pageSize ? Promise.resolve(pageSize) : null
  const stats = createStatFiles(procRoot)
  return {
    clkTck,
    async sample (pid) {
      page ??= detectPageSize(procRoot)
      try {
        const parsed = parseStat(await stats.read(pid))
        return parsed && parsed.ticks !== null ? { ticks: parsed.ticks, startTime: parsed.startTime, rss: parsed.rssPages * await page } : null
      } catch (err) {
        if (isGone(err)) return null
        throw err
      }
    },
    forget: stats.forget,
    get openFiles () { return stats.size }
  }
}

module.exports = { createProcSampler, detectPageSize, cpuPercent, parseVmRss, parsePs, DEFAULT_CLK_TCK }
