'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

// How many CPUs this process may really use, and why: what `instances: 'max'` (and 0, -1) count.
//
// - os.availableParallelism() already follows the CPU affinity mask, which is how a cgroup's
//   cpuset (`docker --cpuset-cpus`, Kubernetes' static CPU manager) and `taskset` show up.
// - A CPU *quota* (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`/`cpu.cfs_period_us`: `docker
//   --cpus`, a Kubernetes CPU limit) does not change the affinity: a pod limited to 2 CPUs on a
//   64-core node still sees 64. It is read here: the process's cgroup from /proc/self/cgroup,
//   where that hierarchy is mounted from /proc/self/mountinfo, then the quota of the cgroup and of
//   every cgroup above it (the tightest wins). A quota counts in whole CPUs, rounded down, at
//   least 1: 1.5 CPUs run 1 worker, which the quota never throttles.
//
// The parsers are pure (text in, values out); usableCpus() reads the files, synchronously: it
// runs in the CLI (and xpm-runtime) while a config is resolved, never in the daemon's loop.

// /proc/self/cgroup: "hierarchy-id:controllers:path" per line. v2 is the line "0::<path>";
// v1 lines name their controllers ("4:cpu,cpuacct:/docker/abc").
function parseProcCgroup (text) {
  const out = { v2: null, v1: {} }
  for (const line of String(text).split('\n')) {
    const first = line.indexOf(':')
    const second = line.indexOf(':', first + 1)
    if (first === -1 || second === -1) continue
    const id = line.slice(0, first)
    const controllers = line.slice(first + 1, second)
    const where = line.slice(second + 1)
    if (!where.startsWith('/')) continue
    if (id === '0' && controllers === '') out.v2 = where
    else for (const c of controllers.split(',')) if (c) out.v1[c] = where
  }
  return out
}

// /proc/self/mountinfo: "id parent major:minor root mountpoint options [optional...] - fstype
// source superoptions". Octal escapes (\040 for a space) in paths are decoded.
function parseMountinfo (text) {
  const mounts = []
  for (const line of String(text).split('\n')) {
    const dash = line.indexOf(' - ')
    if (dash === -1) continue
    const left = line.slice(0, dash).split(' ')
    const right = line.slice(dash + 3).split(' ')
    if (left.length < 5 || right.length < 1) continue
    mounts.push({ root: unescape(left[3]), mountPoint: unescape(left[4]), fstype: right[0], superOptions: (right[2] || '').split(',') })
  }
  return mounts
}

function unescape (s) {
  return s.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)))
}

// cgroup v2 cpu.max: "max 100000" (no quota) or "200000 100000" (2 CPUs). null: no quota.
function parseCpuMax (text) {
  const [quota, period] = String(text).trim().split(/\s+/)
  if (quota === 'max' || quota === undefined) return null
  const q = Number(quota)
  const p = period === undefined ? 100000 : Number(period)
  if (!(q > 0) || !(p > 0)) return null
  return { quota: q, period: p }
}

// cgroup v1: cpu.cfs_quota_us ("-1": no quota) and cpu.cfs_period_us.
function parseCfs (quotaText, periodText) {
  const q = Number(String(quotaText).trim())
  const p = Number(String(periodText).trim())
  if (!(q > 0) || !(p > 0)) return null
  return { quota: q, period: p }
}

// A quota in whole CPUs: rounded down, at least 1.
function quotaCpus ({ quota, period }) {
  return Math.max(1, Math.floor(quota / period + 1e-9))
}

// Where the files of cgroup `cgroupPath` are: the mount whose root is the longest prefix of it.
// In a container with its own cgroup namespace the path is "/" and the mount's root is "/" too.
function cgroupDir (mounts, cgroupPath) {
  let best = null
  for (const m of mounts) {
    const root = m.root === '/' ? '' : m.root
    if (cgroupPath !== root && !cgroupPath.startsWith(root + '/') && root !== '') continue
    if (!best || root.length > best.root.length) best = { ...m, root }
  }
  if (!best) return mounts.length ? { dir: mounts[0].mountPoint, top: mounts[0].mountPoint } : null
  return { dir: path.resolve(best.mountPoint, '.' + cgroupPath.slice(best.root.length)), top: path.resolve(best.mountPoint) }
}

// Every directory from `dir` up to `top`, innermost first.
function ancestors (dir, top) {
  const out = []
  for (let d = dir; ; d = path.dirname(d)) {
    out.push(d)
    if (d === top || !d.startsWith(top) || path.dirname(d) === d) break
  }
  return out
}

// The tightest CPU quota over the process's cgroup and its ancestors, or null when none is set
// (or there is no cgroup file system: macOS, a sandbox). read(file) → text, throws when absent.
function readQuota (read) {
  let cgroups, mounts
  try {
    cgroups = parseProcCgroup(read('/proc/self/cgroup'))
    mounts = parseMountinfo(read('/proc/self/mountinfo'))
  } catch {
    return null
  }
  const tries = []
  if (cgroups.v2 !== null) {
    const at = cgroupDir(mounts.filter((m) => m.fstype === 'cgroup2'), cgroups.v2)
    if (at) tries.push({ version: 2, ...at, quotaOf: (d) => parseCpuMax(read(path.join(d, 'cpu.max'))) })
  }
  if (cgroups.v1.cpu !== undefined) {
    const at = cgroupDir(mounts.filter((m) => m.fstype === 'cgroup' && m.superOptions.includes('cpu')), cgroups.v1.cpu)
    if (at) tries.push({ version: 1, ...at, quotaOf: (d) => parseCfs(read(path.join(d, 'cpu.cfs_quota_us')), read(path.join(d, 'cpu.cfs_period_us'))) })
  }
  let best = null
  for (const { version, dir, top, quotaOf } of tries) {
    for (const d of ancestors(dir, top)) {
      let quota
      try { quota = quotaOf(d) } catch { continue } // no such file at this level (the root has none)
      if (!quota) continue
      const cpus = quota.quota / quota.period
      if (!best || cpus < best.cpus) best = { version, dir: d, ...quota, cpus }
    }
  }
  return best
}

function formatCpus (n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, '')
}

// → { count, source, quota } where source says where the count came from, e.g.
// "cgroup v2 cpu.max 200000 100000 (2 CPUs) in /sys/fs/cgroup/kubepods/pod1; the machine has 64".
function usableCpus ({
  read = (file) => fs.readFileSync(file, 'utf8'),
  available = os.availableParallelism(),
  total = os.cpus().length || available,
  platform = process.platform
} = {}) {
  const quota = platform === 'linux' ? readQuota(read) : null
  const cores = `the machine has ${total}`
  if (quota) {
    const count = quotaCpus(quota)
    if (count <= available && count < total) {
      const file = quota.version === 2
        ? `cpu.max ${quota.quota} ${quota.period}`
        : `cpu.cfs_quota_us ${quota.quota} / cpu.cfs_period_us ${quota.period}`
      return { count, quota, source: `cgroup v${quota.version} CPU quota: ${file} (${formatCpus(quota.cpus)} CPU${quota.cpus === 1 ? '' : 's'}) in ${quota.dir}; ${cores}` }
    }
  }
  if (available < total) return { count: available, quota, source: `CPU affinity (cpuset): ${available} of ${total} CPUs` }
  return { count: available, quota, source: `all ${total} CPUs of the machine` }
}

let cached = null

// The same answer for the whole process (the files do not change while a config is resolved).
function processCpus () {
  cached ??= usableCpus()
  return cached
}

module.exports = { usableCpus, processCpus, parseProcCgroup, parseMountinfo, parseCpuMax, parseCfs, quotaCpus, readQuota }
