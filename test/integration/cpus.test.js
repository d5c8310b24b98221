'use strict'

// `instances: 'max'` under a real CPU quota: a child cgroup limited to one CPU, and the CLI run
// inside it (its pid written to cgroup.procs before it starts). Needs root and a writable cgroup
// file system with the cpu controller (v2, or v1 as on hybrid hosts); skipped with the reason
// otherwise. The parsing itself is unit-tested over sample files (test/unit/cpus.test.js).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, fixture, BIN, waitFor } = require('../helpers/xpm')
const { parseMountinfo } = require('../../lib/shared/cpus')

// A child cgroup with a quota of one CPU, or { skip: why }.
function makeLimitedCgroup () {
  if (process.platform !== 'linux') return { skip: 'cgroups are Linux only' }
  if (process.getuid() !== 0) return { skip: 'creating a cgroup needs root' }
  if (os.availableParallelism() < 2) return { skip: 'a one-CPU machine: a quota of one CPU would not change the count' }
  let mounts
  try { mounts = parseMountinfo(fs.readFileSync('/proc/self/mountinfo', 'utf8')) } catch { return { skip: 'no /proc/self/mountinfo' } }
  const name = `xpm-test-cpus-${process.pid}`
  const reasons = []
  for (const m of mounts.filter((m) => m.fstype === 'cgroup2')) {
    const dir = path.join(m.mountPoint, name)
    try {
      if (!fs.readFileSync(path.join(m.mountPoint, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) {
        reasons.push(`cgroup2 at ${m.mountPoint} has no cpu controller`)
        continue
      }
      fs.writeFileSync(path.join(m.mountPoint, 'cgroup.subtree_control'), '+cpu')
      fs.mkdirSync(dir)
      fs.writeFileSync(path.join(dir, 'cpu.max'), '100000 100000')
      return { dir, procs: path.join(dir, 'cgroup.procs') }
    } catch (err) {
      reasons.push(`cgroup2 at ${m.mountPoint}: ${err.code || err.message}`)
      try { fs.rmdirSync(dir) } catch {}
    }
  }
  for (const m of mounts.filter((m) => m.fstype === 'cgroup' && m.superOptions.includes('cpu'))) {
    const dir = path.join(m.mountPoint, name)
    try {
      fs.mkdirSync(dir)
      fs.writeFileSync(path.join(dir, 'cpu.cfs_period_us'), '100000')
      fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), '100000')
      return { dir, procs: path.join(dir, 'cgroup.procs') }
    } catch (err) {
      reasons.push(`cgroup v1 cpu at ${m.mountPoint}: ${err.code || err.message}`)
      try { fs.rmdirSync(dir) } catch {}
    }
  }
  return { skip: `no writable cgroup with the cpu controller (${reasons.join('; ') || 'none mounted'})` }
}

const cgroup = makeLimitedCgroup()

test('instances: max under a one-CPU cgroup quota starts one worker, and `xpm show` says why', { skip: cgroup.skip }, async (t) => {
  const h = createHome(t)
  t.after(async () => {
    await h.cleanup()
    // the daemon and its workers lived in the cgroup; once they are gone it can go
    await waitFor(() => { try { fs.rmdirSync(cgroup.dir); return true } catch (err) { return err.code === 'ENOENT' } }, { timeout: 10000, message: `removing ${cgroup.dir}` }).catch(() => {})
  })
  // the shell enters the cgroup, then becomes the CLI: the CLI (and the daemon it starts) run in it
  const run = (args) => new Promise((resolve) => {
    const child = spawn('sh', ['-c', `echo $$ > "${cgroup.procs}" && exec "$0" "$@"`, process.execPath, BIN, ...args], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
  const started = await run(['start', fixture('idle-http.js'), '--name', 'capped', '-i', 'max', '--json'])
  assert.equal(started.code, 0, started.stderr)
  const [shown] = JSON.parse((await run(['show', 'capped', '--json'])).stdout)
  assert.equal(shown.spec.instances, 1, `one CPU of quota, one worker (the machine has ${os.availableParallelism()})`)
  assert.equal(shown.spec.instancesFrom.requested, 'max')
  assert.match(shown.spec.instancesFrom.source, /^cgroup v[12] CPU quota: .*\(1 CPU\) in .*xpm-test-cpus-/)
  const text = await run(['show', 'capped'])
  assert.match(text.stdout, /^│ instances from +│ "max" → 1 \(cgroup v[12] CPU quota: /m)
})
