'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { usableCpus, parseProcCgroup, parseMountinfo, parseCpuMax, parseCfs, quotaCpus } = require('../../lib/shared/cpus')

// Sample files as the kernel writes them, from a cgroup v2 container, a hybrid v1 host and a
// Kubernetes node. A fake file system: path → text; anything else is ENOENT.
const fsOf = (files) => (file) => {
  if (Object.hasOwn(files, file)) return files[file]
  throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' })
}

const V2_MOUNTINFO = [
  '22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
  '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot',
  '31 27 259:1 / /home/my\\040dir rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw'
].join('\n')

const HYBRID_MOUNTINFO = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw'
].join('\n')

test('parseProcCgroup: the v2 path and the v1 path of each controller', () => {
  assert.deepEqual(parseProcCgroup('0::/\n'), { v2: '/', v1: {} })
  assert.deepEqual(parseProcCgroup('0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope\n'),
    { v2: '/kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope', v1: {} })
  const hybrid = parseProcCgroup('9:name=systemd:/\n4:memory:/x\n2:cpu,cpuacct:/docker/abc\n0::/\n')
  assert.equal(hybrid.v2, '/')
  assert.equal(hybrid.v1.cpu, '/docker/abc')
  assert.equal(hybrid.v1.cpuacct, '/docker/abc')
  assert.equal(hybrid.v1.memory, '/x')
  assert.deepEqual(parseProcCgroup('garbage\n\n1:cpu:relative\n'), { v2: null, v1: {} })
})

test('parseMountinfo: mount point, root, type and super options; octal escapes decoded', () => {
  const mounts = parseMountinfo(V2_MOUNTINFO)
  assert.deepEqual(mounts[1], { root: '/', mountPoint: '/sys/fs/cgroup', fstype: 'cgroup2', superOptions: ['rw', 'nsdelegate', 'memory_recursiveprot'] })
  assert.equal(mounts[2].mountPoint, '/home/my dir')
  assert.deepEqual(parseMountinfo('not a mountinfo line'), [])
})

test('parseCpuMax and parseCfs: a quota, or null for none', () => {
  assert.equal(parseCpuMax('max 100000\n'), null)
  assert.deepEqual(parseCpuMax('200000 100000\n'), { quota: 200000, period: 100000 })
  assert.deepEqual(parseCpuMax('50000\n'), { quota: 50000, period: 100000 })
  assert.equal(parseCpuMax(''), null)
  assert.equal(parseCpuMax('nonsense 100000'), null)
  assert.equal(parseCfs('-1\n', '100000\n'), null)
  assert.deepEqual(parseCfs('150000\n', '100000\n'), { quota: 150000, period: 100000 })
  assert.equal(parseCfs('150000', '0'), null)
})

test('quotaCpus: whole CPUs, rounded down, at least one', () => {
  assert.equal(quotaCpus({ quota: 200000, period: 100000 }), 2)
  assert.equal(quotaCpus({ quota: 150000, period: 100000 }), 1)
  assert.equal(quotaCpus({ quota: 250000, period: 100000 }), 2)
  assert.equal(quotaCpus({ quota: 10000, period: 100000 }), 1)
  assert.equal(quotaCpus({ quota: 300000, period: 100000 }), 3)
})

test('a container with its own cgroup namespace and a 2-CPU limit on a 64-core node counts 2', () => {
  const read = fsOf({
    '/proc/self/cgroup': '0::/\n',
    '/proc/self/mountinfo': V2_MOUNTINFO,
    '/sys/fs/cgroup/cpu.max': '200000 100000\n'
  })
  const cpus = usableCpus({ read, available: 64, total: 64, platform: 'linux' })
  assert.equal(cpus.count, 2)
  assert.match(cpus.source, /^cgroup v2 CPU quota: cpu\.max 200000 100000 \(2 CPUs\) in \/sys\/fs\/cgroup; the machine has 64$/)
})

test('the tightest quota of the cgroup and its ancestors wins; a level without cpu.max is skipped', () => {
  const read = fsOf({
    '/proc/self/cgroup': '0::/kubepods.slice/pod1.slice/ctr.scope\n',
    '/proc/self/mountinfo': V2_MOUNTINFO,
    '/sys/fs/cgroup/kubepods.slice/pod1.slice/ctr.scope/cpu.max': 'max 100000\n',
    '/sys/fs/cgroup/kubepods.slice/pod1.slice/cpu.max': '150000 100000\n',
    '/sys/fs/cgroup/kubepods.slice/cpu.max': '800000 100000\n'
  })
  const cpus = usableCpus({ read, available: 16, total: 16, platform: 'linux' })
  assert.equal(cpus.count, 1, '1.5 CPUs run one worker')
  assert.match(cpus.source, /cpu\.max 150000 100000 \(1\.5 CPUs\) in \/sys\/fs\/cgroup\/kubepods\.slice\/pod1\.slice;/)
})

test('cgroup v1 (a hybrid host): cpu.cfs_quota_us over cpu.cfs_period_us of the cpu hierarchy', () => {
  const read = fsOf({
    '/proc/self/cgroup': '2:cpu:/docker/abc\n3:cpuacct:/docker/abc\n0::/\n',
    '/proc/self/mountinfo': HYBRID_MOUNTINFO,
    '/sys/fs/cgroup/cpu/docker/abc/cpu.cfs_quota_us': '300000\n',
    '/sys/fs/cgroup/cpu/docker/abc/cpu.cfs_period_us': '100000\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n'
  })
  const cpus = usableCpus({ read, available: 8, total: 8, platform: 'linux' })
  assert.equal(cpus.count, 3)
  assert.match(cpus.source, /^cgroup v1 CPU quota: cpu\.cfs_quota_us 300000 \/ cpu\.cfs_period_us 100000 \(3 CPUs\) in \/sys\/fs\/cgroup\/cpu\/docker\/abc; the machine has 8$/)
})

test('no quota: the CPUs the affinity mask (cpuset) allows, else every CPU of the machine', () => {
  const read = fsOf({
    '/proc/self/cgroup': '0::/user.slice\n',
    '/proc/self/mountinfo': V2_MOUNTINFO,
    '/sys/fs/cgroup/user.slice/cpu.max': 'max 100000\n'
  })
  assert.deepEqual(usableCpus({ read, available: 4, total: 16, platform: 'linux' }), { count: 4, quota: null, source: 'CPU affinity (cpuset): 4 of 16 CPUs' })
  assert.deepEqual(usableCpus({ read, available: 16, total: 16, platform: 'linux' }), { count: 16, quota: null, source: 'all 16 CPUs of the machine' })
})

test('a quota above what the affinity allows does not raise the count; no /proc (macOS, a sandbox) counts the CPUs', () => {
  const read = fsOf({
    '/proc/self/cgroup': '0::/\n',
    '/proc/self/mountinfo': V2_MOUNTINFO,
    '/sys/fs/cgroup/cpu.max': '800000 100000\n'
  })
  const cpus = usableCpus({ read, available: 2, total: 16, platform: 'linux' })
  assert.equal(cpus.count, 2)
  assert.match(cpus.source, /^CPU affinity/)
  assert.equal(usableCpus({ read: fsOf({}), available: 8, total: 8, platform: 'linux' }).count, 8)
  assert.equal(usableCpus({ read, available: 8, total: 8, platform: 'darwin' }).source, 'all 8 CPUs of the machine')
})

test('this machine: a count between 1 and the CPUs Node sees, and a reason', () => {
  const os = require('node:os')
  const cpus = usableCpus()
  assert.ok(cpus.count >= 1 && cpus.count <= os.availableParallelism(), JSON.stringify(cpus))
  assert.ok(cpus.source.length > 0)
})
