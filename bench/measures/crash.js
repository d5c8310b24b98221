'use strict'

const { spawn } = require('node:child_process')
const { alternate, rows } = require('../lib/series')
const { HELLO, startFleet, waitHttp } = require('../lib/apps')
const { benchEnv, kill, delay, httpGet, freePort, isAlive, waitFor } = require('../lib/util')

// Probes every `interval` ms without waiting for earlier probes: a connection accepted while no
// worker is left may hang, and must not hide the first answer of the new worker. `t0`: when the
// clock started (the kill, or the floor's spawn).
function firstNewAnswer (port, old, { interval = 2, timeout = 20000, t0 = performance.now() } = {}) {
  return new Promise((resolve, reject) => {
    let done = false
    let inflight = 0
    const finish = (err, ms) => {
      if (done) return
      done = true
      clearInterval(timer)
      clearTimeout(deadline)
      err ? reject(err) : resolve(ms)
    }
    const probe = () => {
      if (inflight >= 100) return
      inflight++
      httpGet(port, { timeout: 3000 }).then((body) => {
        if (body !== old) finish(null, performance.now() - t0)
      }, () => {}).finally(() => { inflight-- })
    }
    const timer = setInterval(probe, interval)
    const deadline = setTimeout(() => finish(new Error(`no new process answered on port ${port} within ${timeout} ms`)), timeout)
    probe()
  })
}

// The floor: the same app started by a bare `node` (spawned here, as a supervisor would), from
// the spawn until a new connection is answered.
async function bareStart (port) {
  const t0 = performance.now()
  const answered = firstNewAnswer(port, null, { t0 })
  const child = spawn(process.execPath, [HELLO], { env: benchEnv({ PORT: String(port) }), stdio: 'ignore' })
  try {
    return await answered
  } finally {
    kill(child.pid, 'SIGKILL')
    await waitFor(() => !isAlive(child.pid), { timeout: 5000 }).catch(() => {})
  }
}

const MODES = [
  { id: 'fork', instances: 0, label: 'fork mode' },
  { id: 'cluster', instances: 1, label: 'cluster mode (-i 1)' }
]

// Issue 27, "crash to serving again": SIGKILL of the only process of an HTTP app, in fork mode
// and in cluster mode (in cluster mode the port closes with the worker), then the time until a
// new connection is answered by a new process. Each process has run at least 2 s first, so no
// contender treats the crash as an unstable restart. The floor column is a bare `node` start of
// the same app (spawn to first answer) for both rows; the raw cluster primary restarting its
// worker is a further reference row.
module.exports = {
  name: 'crash',
  title: 'Crash to serving again',
  columns: { raw: 'bare `node` start (floor)', ratio: 'xpm/floor' },
  description: 'SIGKILL of the only process of an HTTP app (bench/apps/hello.js) in fork mode and in cluster mode (`-i 1`, the port closes with the worker), then probes every 2 ms (new connections) until a new process answers. Each process ran ≥ 2 s first, so the restart is not an unstable one. Floor: the same app started by a bare `node` spawned from the bench, until its first answer. The last row is a bare `node:cluster` primary forking a new worker on `exit`, for reference.',
  async run (ctx) {
    const [xpm, pm2, raw] = ctx.contenders(['xpm', 'pm2', 'raw'])
    const apps = new Map() // `${contender}:${mode}` → { name, port, upSince }
    for (const c of [xpm, pm2]) {
      for (const mode of MODES) {
        const [app] = await startFleet(c, { prefix: `crash-${mode.id}`, count: 1, instances: mode.instances, script: HELLO })
        apps.set(`${c.name}:${mode.id}`, { ...app, upSince: performance.now() })
      }
    }
    const [rawApp] = await startFleet(raw, { prefix: 'crash-raw', count: 1, instances: 1, script: HELLO })
    apps.set('raw:cluster', { ...rawApp, upSince: performance.now() })
    const floorPort = await freePort()

    const crash = async (c, mode) => {
      const app = apps.get(`${c.name}:${mode}`)
      const wait = 2000 - (performance.now() - app.upSince)
      if (wait > 0) await delay(wait)
      const old = String(await waitHttp(app.port))
      const [pid] = await c.workerPids(app.name)
      if (!pid || String(pid) !== old) throw new Error(`pid ${pid} does not match the answer ${old}`)
      const answered = firstNewAnswer(app.port, old)
      kill(pid, 'SIGKILL')
      const ms = await answered
      app.upSince = performance.now()
      return ms
    }
    const result = await alternate([xpm, pm2, raw], ctx.rounds(7, 3), async (c) => {
      if (c === raw) return { fork: await bareStart(floorPort), cluster: await bareStart(floorPort), rawCluster: await crash(raw, 'cluster') }
      return { fork: await crash(c, 'fork'), cluster: await crash(c, 'cluster') }
    }, ctx)
    return rows([
      { id: 'crash.fork', key: 'fork', label: 'fork mode: SIGKILL → a new process answers (floor: bare `node` start → first answer)', unit: 'ms' },
      { id: 'crash.cluster', key: 'cluster', label: 'cluster mode (-i 1): SIGKILL → a new worker answers (floor: bare `node` start → first answer)', unit: 'ms' },
      { id: 'crash.rawCluster', key: 'rawCluster', label: 'reference: a bare `node:cluster` primary forks a new worker on `exit` → it answers', unit: 'ms' }
    ], result)
  }
}
