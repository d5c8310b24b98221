'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { alternate, rows } = require('../lib/series')
const { benchEnv, UNSET_ENV, isAlive, kill, waitFor, delay } = require('../lib/util')

// Many apps at once: one ecosystem file with N fork-mode apps of a tiny idle script (N = 10 and
// 100 by default, `--scale-apps 10,100,300` for others), and one cluster-mode app with 32
// instances of the same script. Timed from issuing `<tool> start ecosystem.config.js` (daemon
// already running, no app yet) until `jlist` reports every process online; the CLI's own exit
// time and exit code are recorded beside it. The floor: as many plain `node idle.js` processes
// spawned at once from one Node parent, until each has written its first line.

const DEFAULT_APPS = [10, 100]
const INSTANCES = 32
const DEADLINE_MS = 180000 // per round: the CLI is killed then, and polling jlist stops
const FLEET_DEADLINE_MS = 600000 // the 1,000-process case, run once (it saturates two cores for minutes)
const POLL_GAP_MS = 250
const SETTLE_MS = 1000

// The same script for every contender and the floor: stays alive, and writes one line after its
// first tick (the floor waits for it; xpm and PM2 just log it).
const IDLE = [
  "'use strict'",
  'setInterval(() => {}, 1e9)',
  "setImmediate(() => process.stdout.write('up ' + process.pid + '\\n'))",
  ''
].join('\n')

function writeEcosystem (dir, apps) {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, 'ecosystem.config.js')
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps }, null, 2)}\n`)
  return file
}

// One case = one ecosystem file and the number of processes it yields. fleet: { apps, instances }
// (`--scale-fleet 10x100`): also that many fork-mode apps of that many instances each.
function makeCases (dir, counts, fleet = null) {
  const script = path.join(dir, 'idle.js')
  fs.writeFileSync(script, IDLE)
  const cases = counts.map((n) => ({
    id: `apps${n}`,
    label: `${n} fork apps`,
    processes: n,
    file: writeEcosystem(path.join(dir, `apps${n}`), Array.from({ length: n }, (_, i) => ({
      name: `idle${i}`, script, exec_mode: 'fork'
    })))
  }))
  if (fleet) {
    cases.push({
      id: `fleet${fleet.apps}x${fleet.instances}`,
      label: `${fleet.apps} fork apps × ${fleet.instances} instances`,
      processes: fleet.apps * fleet.instances,
      once: true,
      deadlineMs: FLEET_DEADLINE_MS,
      file: writeEcosystem(path.join(dir, 'fleet'), Array.from({ length: fleet.apps }, (_, i) => ({
        name: `fleet${i}`, script, exec_mode: 'fork', instances: fleet.instances
      })))
    })
  }
  cases.push({
    id: `instances${INSTANCES}`,
    label: `1 app × ${INSTANCES} cluster instances`,
    processes: INSTANCES,
    file: writeEcosystem(path.join(dir, `instances${INSTANCES}`), [{
      name: 'wide', script, exec_mode: 'cluster', instances: INSTANCES
    }])
  })
  return { script, cases }
}

// Status and online time (epoch ms, estimated) of a jlist row of either tool.
function rowState (c, row, answeredAt) {
  if (c.name === 'pm2') {
    const env = row.pm2_env || {}
    return { online: env.status === 'online' && row.pid > 0, since: Number(env.pm_uptime) || null, pid: row.pid, restarts: Number(env.restart_time) || 0 }
  }
  const online = row.status === 'online' && row.pid > 0
  return { online, since: online && Number.isFinite(row.uptime) ? answeredAt - row.uptime : null, pid: row.pid, restarts: Number(row.restarts) || 0 }
}

// How many of a process's environment variables named in UNSET_ENV are set (0 when unreadable).
function leakedEnv (pid) {
  try {
    const vars = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').map((kv) => kv.split('=')[0])
    return UNSET_ENV.filter((name) => vars.includes(name)).length
  } catch {
    return 0
  }
}

// One timed start under xpm or PM2. The CLI runs to its own end (or the deadline) while jlist is
// polled one call at a time, POLL_GAP_MS apart. `online` = when the last process went online:
// the latest per-row online time the tool reports (PM2: pm_uptime; xpm: answer time − uptime),
// kept between the last poll that still saw a process missing and the first poll that saw them
// all, so it is neither earlier than what was observed nor coarser than the polling.
async function timedStart (c, kase, log) {
  const t0 = performance.now()
  const e0 = Date.now()
  let cli = null
  const deadline = kase.deadlineMs || DEADLINE_MS
  const cliDone = c.cli(['start', kase.file], { timeout: deadline }).then((res) => {
    cli = { ms: performance.now() - t0, code: res.code, signal: res.signal, tail: (res.stderr || res.stdout).trim().split('\n').slice(-2).join(' | ') }
  })
  let lastMissing = 0 // ms since t0 when the last poll that saw a process missing was issued
  let seen = null
  let lastCount = 0
  while (performance.now() - t0 < deadline) {
    const issued = performance.now() - t0
    const cliExitedBefore = cli !== null
    let list = null
    try { list = await (c.statusRows ? c.statusRows() : c.jlist()) } catch {}
    const answered = performance.now() - t0
    if (list) {
      const states = list.map((row) => rowState(c, row, e0 + answered))
      const online = states.filter((s) => s.online)
      lastCount = online.length
      if (online.length >= kase.processes) {
        const sinces = online.map((s) => s.since)
        const latest = sinces.every(Number.isFinite) ? Math.max(...sinces) - e0 : answered
        seen = { ms: Math.min(answered, Math.max(latest, lastMissing)), pids: online.map((s) => s.pid) }
        const restarts = states.reduce((sum, s) => sum + s.restarts, 0)
        if (restarts) log(`  ${c.name} ${kase.label}: ${restarts} restarts before all were online`)
        break
      }
      lastMissing = issued
    }
    // POLL_GAP_MS between polls, but one poll as soon as the CLI has exited.
    if (cliExitedBefore) await delay(POLL_GAP_MS)
    else if (!cli) await Promise.race([delay(POLL_GAP_MS), cliDone])
  }
  await cliDone
  if (!seen) {
    throw new Error(`${lastCount}/${kase.processes} online after ${deadline / 1000} s; CLI exited ${cli.code}${cli.signal ? ` (${cli.signal})` : ''} after ${Math.round(cli.ms)} ms: ${cli.tail}`)
  }
  if (cli.code !== 0) log(`  ${c.name} ${kase.label}: CLI exited ${cli.code} after ${Math.round(cli.ms)} ms (all online at ${Math.round(seen.ms)} ms): ${cli.tail}`)
  const leaked = seen.pids.filter(leakedEnv).length
  if (leaked) log(`  ${c.name} ${kase.label}: ${leaked} processes have ${UNSET_ENV.join(', ')} set`)
  return { online: seen.ms, cli: cli.ms, code: cli.code, loop: await longestStall(c, e0, e0 + Math.max(seen.ms, cli.ms)) }
}

// The daemon's longest event-loop stall from `from` to `to` (epoch ms), from its loop probe
// (bench/lib/loop-probe.js); null when the probe wrote nothing.
async function longestStall (c, from, to) {
  await delay(1100) // the probe writes once a second
  try {
    const seconds = JSON.parse(fs.readFileSync(loopFile(c), 'utf8'))
    const inWindow = seconds.filter(([at]) => at > from && at <= to + 1000).map(([, ms]) => ms)
    return inWindow.length ? Math.max(...inWindow) : null
  } catch {
    return null
  }
}

function loopFile (c) {
  return path.join(c.home, 'bench-loop-delay.json')
}

// The probe goes into the daemon through the environment of the CLI that starts it.
function probeEnv (c) {
  return { NODE_OPTIONS: `--require ${path.join(__dirname, '..', 'lib', 'loop-probe.js')}`, XPM_BENCH_LOOP_FILE: loopFile(c) }
}

// Deletes every app and waits until no process of the round is left. Resolves { ms, loop }: the
// `delete all` CLI's wall time and the daemon's longest loop stall meanwhile.
async function clear (c) {
  const pids = (await c.jlist().catch(() => [])).map((p) => p.pid).filter(Boolean)
  const e0 = Date.now()
  const t0 = performance.now()
  const res = await c.cli(['delete', 'all'], { timeout: DEADLINE_MS })
  const ms = performance.now() - t0
  if (res.code !== 0) throw new Error(`delete all exited ${res.code}: ${(res.stderr || res.stdout).trim()}`)
  const loop = await longestStall(c, e0, e0 + ms)
  await waitFor(async () => (await c.jlist()).length === 0 && pids.every((p) => !isAlive(p)), { timeout: 60000, interval: 100, message: 'every app to be gone' })
  await delay(SETTLE_MS) // the daemon's own clean-up must not land on the next contender's round
  return { ms, loop }
}

// The floor: `count` plain `node idle.js` spawned in one loop from this process; resolves the ms
// until each has written its first line. Every child is killed by pid afterwards.
async function floor (script, count, deadline = DEADLINE_MS) {
  const children = []
  const t0 = performance.now()
  try {
    return await new Promise((resolve, reject) => {
      let up = 0
      const timer = setTimeout(() => reject(new Error(`${up}/${count} plain node processes up after ${deadline / 1000} s`)), deadline)
      for (let i = 0; i < count; i++) {
        const child = spawn(process.execPath, [script], { env: benchEnv(), stdio: ['ignore', 'pipe', 'ignore'] })
        children.push(child)
        child.on('error', (err) => { clearTimeout(timer); reject(err) })
        child.stdout.once('data', () => {
          if (++up < count) return
          clearTimeout(timer)
          resolve(performance.now() - t0)
        })
      }
    })
  } finally {
    const pids = children.map((ch) => ch.pid).filter(Boolean)
    for (const pid of pids) kill(pid, 'SIGKILL')
    await waitFor(() => pids.every((p) => !isAlive(p)), { timeout: 10000, interval: 20 }).catch(() => {})
    for (const ch of children) ch.stdout?.destroy()
  }
}

module.exports = {
  name: 'scale',
  title: 'Many apps at once',
  columns: { raw: 'plain node (floor)', ratio: 'xpm/floor' },
  description: 'One ecosystem file of N fork-mode apps running an idle script (`setInterval`, no port; it writes one line after its first tick), and one file of a single app with 32 instances of it in cluster mode (`exec_mode: \'cluster\'`, the way both tools run many instances of one app; with no port it starts like fork mode). Timed from issuing `xpm start ecosystem.config.js` / `pm2 start ecosystem.config.js`, with the daemon already running and no app, until the process list (polled one call at a time, 250 ms apart, each poll a Node process: `pm2 jlist`; for xpm `bench/lib/xpm-rows.js`, a `list` request with the fields a poll needs, as the `list` table asks — a `jlist` returns the agents\' figures and so puts every agent at its full report rate for 10 s, a report each second with 100 ms loop ticks) reports every process `online`; the time of the last process going online is taken from the rows\' own timestamps (PM2 `pm_uptime`, xpm answer time − `uptime`), bounded by the last poll that still saw one missing and the first that saw them all. "CLI exited" is the start command\'s own wall time, and its exit code is recorded (a CLI that gives up is not a failed round as long as every process comes online within 180 s). Apps are deleted between rounds (`delete all`, its CLI timed and the daemon\'s longest loop stall meanwhile read), then 1 s of quiet. Floor: as many plain `node idle.js` processes spawned in one loop from one Node parent, until each has written its line. Where xpm\'s time above the floor goes (daemon CPU profile of a 100-app start): the CLI\'s own start-up and config load (about 70 ms), and `fork()` itself — Node spawns children one after another on the parent\'s thread, about 9 ms each from the daemon against 6.6 ms from a bare Node parent, because the cost of `fork()` grows with the parent\'s address space (a bare parent with 200 MB of ballast takes 10 ms). Readiness adds nothing: a Node app counts as online when the agent reports that its entry has run its first turn. The daemons\' own event loops are watched during each start by a probe preloaded into them (bench/lib/loop-probe.js: a 10 ms `monitorEventLoopDelay`, the longest stall of each second).',
  async run (ctx) {
    const counts = ctx.scaleApps || DEFAULT_APPS
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-scale-'))
    try {
      const { script, cases } = makeCases(dir, counts, ctx.scaleFleet)
      const [xpm, pm2] = ctx.contenders(['xpm', 'pm2'])
      const floorer = { name: 'raw' }
      // Daemons up before anything is timed, each with the loop probe.
      for (const c of [xpm, pm2]) {
        const res = await c.cli(['ping'], { env: probeEnv(c) })
        if (res.code !== 0) throw new Error(`${c.name} ping exited ${res.code}: ${(res.stderr || res.stdout).trim()}`)
      }
      // Warm-up, not timed: the first start of a node script pays for cold disk caches.
      await floor(script, 2)
      const merged = { series: { xpm: {}, pm2: {}, raw: {} }, errors: {} }
      const defs = []
      for (const kase of cases) {
        ctx.log(`  ${kase.label} (${kase.processes} processes)`)
        const result = await alternate([xpm, pm2, floorer], kase.once ? 1 : ctx.rounds(3, 1), async (c) => {
          if (c === floorer) return { [`${kase.id}.online`]: await floor(script, kase.processes, kase.deadlineMs) }
          const r = await timedStart(c, kase, ctx.log).catch(async (err) => {
            await clear(c).catch(() => {})
            throw err
          })
          const out = { [`${kase.id}.online`]: r.online, [`${kase.id}.cli`]: r.cli, [`${kase.id}.code`]: r.code }
          if (r.loop !== null) out[`${kase.id}.loop`] = r.loop
          const deleted = await clear(c)
          out[`${kase.id}.delete`] = deleted.ms
          if (deleted.loop !== null) out[`${kase.id}.deleteLoop`] = deleted.loop
          return out
        }, ctx)
        for (const [name, figures] of Object.entries(result.series)) Object.assign(merged.series[name], figures)
        for (const [name, err] of Object.entries(result.errors)) merged.errors[name] = `${kase.label}: ${err}`
        defs.push(
          { id: `scale.${kase.id}.online`, key: `${kase.id}.online`, label: `${kase.label}: all online per \`jlist\` (floor: all plain processes up)`, unit: 'ms' },
          { id: `scale.${kase.id}.cli`, key: `${kase.id}.cli`, label: `${kase.label}: \`start\` CLI exited`, unit: 'ms' },
          { id: `scale.${kase.id}.code`, key: `${kase.id}.code`, label: `${kase.label}: \`start\` CLI exit code`, unit: 'code' },
          { id: `scale.${kase.id}.loop`, key: `${kase.id}.loop`, label: `${kase.label}: the daemon's longest event-loop stall during the start`, unit: 'ms' },
          { id: `scale.${kase.id}.delete`, key: `${kase.id}.delete`, label: `${kase.label}: \`delete all\` CLI exited`, unit: 'ms' },
          { id: `scale.${kase.id}.deleteLoop`, key: `${kase.id}.deleteLoop`, label: `${kase.label}: the daemon's longest event-loop stall during \`delete all\``, unit: 'ms' }
        )
      }
      return rows(defs, merged)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
