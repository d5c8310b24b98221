'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { alternate, rows } = require('../lib/series')
const { startFleet } = require('../lib/apps')
const { tmuxStart, tmuxAvailable } = require('../lib/tmux')
const { run, rss, uss, cpuSeconds, cpuMs, isAlive, waitFor, delay } = require('../lib/util')
const { watchCost } = require('../lib/watch-cost')
const { ROOT: XPM_ROOT } = require('../lib/xpm')

// Issue 15: what many processes cost when nobody is looking, and when someone looks. Two cases,
// one contender at a time (start, measure, `kill`), xpm then PM2:
// - 100 idle fork-mode Node apps (one ecosystem file, the idle script of the scale measure);
// - N processes of a tiny non-Node program (`exec sleep` in a shell script; one app with
//   `instances: N`, fork mode, for both tools). N = 1,000 by default (`--idle-procs N`).
// In each: daemon CPU over IDLE_S seconds after QUIET_S seconds of quiet (nothing asked the
// daemon anything: xpm samples at the full rate for 10 s after a `list`), the daemon's RSS at
// the end of it, `list` and `jlist` wall time, the dashboard's CPU (and the daemon's) while it
// shows the processes in a 120×40 tmux terminal, and `kill` until every process is gone.
// Also `list` with 4 apps × 2 against the `node -e 0` floor, in the same run.

const APPS = 100
const DEFAULT_PROCS = 1000
const QUIET_S = 15
const LEASE_S = 11
const SMALL_SETTLE_S = 5
const DEADLINE_MS = 300000

const IDLE = [
  "'use strict'",
  'setInterval(() => {}, 1e9)',
  "setImmediate(() => process.stdout.write('up ' + process.pid + '\\n'))",
  ''
].join('\n')
const TINY = '#!/bin/sh\nexec sleep 100000\n'

function writeEcosystem (file, apps) {
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps }, null, 2)}\n`)
  return file
}

function isOnline (c, row) {
  return c.name === 'pm2' ? row.pm2_env?.status === 'online' && row.pid > 0 : row.status === 'online' && row.pid > 0
}

// Median-free helpers: each run appends to series[key].
function add (series, key, value) {
  (series[key] ||= []).push(value)
}

// `<tool> <args>` `times` times; wall times in ms.
async function timed (c, args, times) {
  const out = []
  for (let i = 0; i < times; i++) {
    const res = await c.cli(args, { timeout: 120000 })
    if (res.code !== 0) throw new Error(`${args.join(' ')} exited ${res.code}: ${(res.stderr || res.stdout).trim().split('\n').slice(-2).join(' | ')}`)
    out.push(res.ms)
  }
  return out
}

// CPU (% of a core) of the dashboard and of the daemon while the dashboard shows `needle`.
async function monitCpu (c, needle, seconds) {
  const term = await tmuxStart(c.monitCommand(), { env: c.env })
  try {
    const pid = await term.pid()
    c.track(pid)
    await waitFor(async () => (await term.capture()).includes(needle), { timeout: 60000, interval: 250, message: `the dashboard to show ${needle}` })
    await delay(1000)
    const daemon = c.daemonPid()
    const d0 = cpuSeconds(daemon)
    const p0 = cpuSeconds(pid)
    const t0 = performance.now()
    await delay(seconds * 1000)
    const p1 = cpuSeconds(pid)
    const d1 = cpuSeconds(daemon)
    const elapsed = (performance.now() - t0) / 1000
    return { monit: (p1 - p0) / elapsed * 100, monitDaemon: (d1 - d0) / elapsed * 100 }
  } finally {
    await term.kill()
  }
}

// One case under one contender: start, measure, kill. Resolves { series, error }.
async function runCase (c, kase, opts, log) {
  const series = {}
  let error = null
  const step = async (what, fn) => {
    try {
      await fn()
    } catch (err) {
      error ||= `${what}: ${err.message}`
      log(`  ${c.name} ${kase.label}: ${what} failed: ${err.message}`)
    }
  }
  await c.ping()
  const t0 = performance.now()
  const started = await c.cli(['start', kase.file], { timeout: DEADLINE_MS })
  if (started.code !== 0) log(`  ${c.name} ${kase.label}: start exited ${started.code}: ${(started.stderr || started.stdout).trim().split('\n').slice(-1)}`)
  let pids = []
  await waitFor(async () => {
    const list = await c.jlist()
    pids = list.filter((row) => isOnline(c, row)).map((row) => row.pid)
    return pids.length >= kase.processes
  }, { timeout: DEADLINE_MS, interval: 1000, message: `${kase.processes} processes online` })
  add(series, `${kase.id}.start`, performance.now() - t0)
  log(`  ${c.name} ${kase.label}: ${pids.length} online after ${Math.round(performance.now() - t0)} ms`)

  const daemon = c.daemonPid()
  await delay(QUIET_S * 1000)
  const d0 = cpuMs(daemon)
  const w0 = performance.now()
  await delay(opts.idleS * 1000)
  add(series, `${kase.id}.cpu`, (cpuMs(daemon) - d0) / (performance.now() - w0) * 100)
  add(series, `${kase.id}.rss`, rss(daemon) / 1024 / 1024)
  add(series, `${kase.id}.uss`, uss(daemon) / 1024 / 1024)
  if (kase.watchShown && c.name === 'xpm') {
    await step('watch', async () => {
      const cost = await watchCost(c, { root: XPM_ROOT, shown: kase.watchShown, rounds: opts.watchRounds, seconds: opts.monitS })
      for (const v of cost.some) add(series, `${kase.id}.watchSome`, v)
      for (const v of cost.someLists) add(series, `${kase.id}.watchSomeLists`, v)
      for (const v of cost.all) add(series, `${kase.id}.watchAll`, v)
    })
  }

  await step('list', async () => { for (const ms of await timed(c, ['list'], opts.lists)) add(series, `${kase.id}.list`, ms) })
  await step('jlist', async () => { for (const ms of await timed(c, ['jlist'], opts.lists)) add(series, `${kase.id}.jlist`, ms) })
  if (opts.tmux) {
    // a `list` samples every process at the full rate for the next 10 s: wait that out, or the
    // window measures the `jlist` above rather than the dashboard (both tools wait alike)
    await delay(LEASE_S * 1000)
    await step('monit', async () => {
      const cpu = await monitCpu(c, kase.needle, opts.monitS)
      add(series, `${kase.id}.monit`, cpu.monit)
      add(series, `${kase.id}.monitDaemon`, cpu.monitDaemon)
    })
  } else error ||= 'monit: tmux is not installed'

  const k0 = performance.now()
  const killed = await c.cli(['kill'], { timeout: DEADLINE_MS })
  await waitFor(() => !isAlive(daemon) && pids.every((pid) => !isAlive(pid)), { timeout: DEADLINE_MS, interval: 50, message: 'every process gone after kill' })
  add(series, `${kase.id}.kill`, performance.now() - k0)
  if (killed.code !== 0) error ||= `kill exited ${killed.code}`
  await c.reap()
  return { series, error }
}

module.exports = {
  name: 'idle',
  title: 'Many processes: idle cost, list, monit, kill',
  columns: { raw: '`node -e 0` (floor)', ratio: 'xpm/floor' },
  description: `Two cases, each run under one tool at a time (start, measure, \`kill\`; xpm, then PM2): ${APPS} idle fork-mode Node apps from one ecosystem file (the idle script of "Many apps at once"), and N processes of a tiny non-Node program (a shell script that \`exec\`s \`sleep\`; one app with \`instances: N\` in fork mode under both tools). Once every process is online and nothing has asked the daemon anything for ${QUIET_S} s (xpm samples at the full rate for 10 s after a \`list\`), the daemon's CPU (all its threads, from /proc/<pid>/task/*/schedstat, at ns resolution) is read over the idle window and its RSS at the end of it, and its USS (private clean and dirty pages from /proc/<pid>/smaps_rollup: the memory it does not share with other processes; RSS also counts the node binary's pages every Node process maps); xpm's daemon CPU is then read while a client of its socket subscribes to the processes as \`xpm monit\` and \`xpm web\` do, naming 10 of the 100 apps or 20 of the N processes (the rows a terminal shows: only those are sampled every second, the others pushed as summary rows when they change, bench/lib/watch-cost.js), naming the same but getting every row every second (as before issue 27's change feed), or naming none (every process, as dashboards did before), in alternating windows as long as the dashboard's; then \`list\` and \`jlist\` are timed (wall time of the CLI, one after another), the dashboard (\`xpm monit\` / \`pm2 monit\`) runs in a 120×40 tmux terminal and its CPU and the daemon's are read once it shows the processes, and \`kill\` is timed until the daemon and every process are gone. First, \`list\` with 4 hello apps × 2 workers is timed against the \`node -e 0\` floor on the same Node, alternating.`,
  async run (ctx) {
    const procs = ctx.idleProcs || (ctx.quick ? 300 : DEFAULT_PROCS)
    const opts = { idleS: ctx.quick ? 10 : 60, monitS: ctx.quick ? 5 : 10, lists: ctx.rounds(5, 3), watchRounds: ctx.rounds(3, 1), tmux: await tmuxAvailable() }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpm-bench-idle-'))
    try {
      const script = path.join(dir, 'idle.js')
      fs.writeFileSync(script, IDLE)
      const tiny = path.join(dir, 'tiny.sh')
      fs.writeFileSync(tiny, TINY, { mode: 0o755 })
      const cases = [
        {
          id: `apps${APPS}`,
          label: `${APPS} idle Node apps`,
          processes: APPS,
          needle: 'idle0',
          watchShown: 10,
          file: writeEcosystem(path.join(dir, 'apps.config.js'), Array.from({ length: APPS }, (_, i) => ({ name: `idle${i}`, script, exec_mode: 'fork' })))
        },
        {
          id: `procs${procs}`,
          label: `${procs} tiny processes`,
          processes: procs,
          needle: 'tiny',
          watchShown: 20,
          file: writeEcosystem(path.join(dir, 'procs.config.js'), [{ name: 'tiny', script: tiny, exec_mode: 'fork', instances: procs }])
        }
      ]
      const [xpm, pm2, raw] = ctx.contenders(['xpm', 'pm2', 'raw'])
      const merged = { series: { xpm: {}, pm2: {}, raw: {} }, errors: {} }

      // `list` with 4 apps × 2 against the floor.
      ctx.log('  list with 4 apps × 2 against `node -e 0`')
      for (const c of [xpm, pm2]) await startFleet(c, { prefix: 'four' })
      for (const c of [xpm, pm2]) await c.list()
      const floor = await alternate([xpm, pm2, raw], ctx.rounds(10, 5), async (c) => ({
        list4: c === raw ? (await run(process.execPath, ['-e', '0'])).ms : (await c.list()).ms
      }), ctx)
      for (const [name, figures] of Object.entries(floor.series)) Object.assign(merged.series[name], figures)
      Object.assign(merged.errors, floor.errors)
      for (const c of [xpm, pm2]) await c.kill()

      const defs = [{ id: 'idle.list4', key: 'list4', label: '`list` with 4 apps × 2 (floor: `node -e 0`)', unit: 'ms' }]

      // Daemon RSS with no process and with 10 (the 100 and 1,000 cases below give the rest of
      // the table): a fresh daemon each, SMALL_SETTLE_S after every process is online.
      ctx.log('  daemon RSS with 0 and 10 processes')
      const small = writeEcosystem(path.join(dir, 'small.config.js'), Array.from({ length: 10 }, (_, i) => ({ name: `small${i}`, script: path.join(dir, 'idle.js'), exec_mode: 'fork' })))
      for (const c of [xpm, pm2]) {
        try {
          await c.ping()
          await delay(SMALL_SETTLE_S * 1000)
          add(merged.series[c.name], 'rss0', rss(c.daemonPid()) / 1024 / 1024)
          add(merged.series[c.name], 'uss0', uss(c.daemonPid()) / 1024 / 1024)
          await c.cli(['start', small], { timeout: DEADLINE_MS })
          await waitFor(async () => (await c.jlist()).filter((row) => isOnline(c, row)).length >= 10, { timeout: 60000, interval: 500, message: '10 processes online' })
          await delay(SMALL_SETTLE_S * 1000)
          add(merged.series[c.name], 'rss10', rss(c.daemonPid()) / 1024 / 1024)
          add(merged.series[c.name], 'uss10', uss(c.daemonPid()) / 1024 / 1024)
        } catch (err) {
          merged.errors[c.name] = `RSS with 0 and 10 processes: ${err.message}`
        }
        await c.kill()
      }
      defs.push(
        { id: 'idle.rss0', key: 'rss0', label: 'daemon RSS, no process', unit: 'MB' },
        { id: 'idle.rss10', key: 'rss10', label: 'daemon RSS, 10 idle Node apps', unit: 'MB' },
        { id: 'idle.uss0', key: 'uss0', label: 'daemon private memory (USS, not shared with other processes), no process', unit: 'MB' },
        { id: 'idle.uss10', key: 'uss10', label: 'daemon private memory (USS), 10 idle Node apps', unit: 'MB' }
      )
      for (const kase of cases) {
        ctx.log(`  ${kase.label}`)
        for (const c of [xpm, pm2]) {
          const { series, error } = await runCase(c, kase, opts, ctx.log).catch((err) => ({ series: {}, error: err.message }))
          Object.assign(merged.series[c.name], series)
          if (error) merged.errors[c.name] = `${kase.label}: ${error}`
          await c.reap()
        }
        defs.push(
          { id: `idle.${kase.id}.cpu`, key: `${kase.id}.cpu`, label: `${kase.label}: daemon CPU over ${opts.idleS} s, nobody watching`, unit: '% of a core' },
          { id: `idle.${kase.id}.rss`, key: `${kase.id}.rss`, label: `${kase.label}: daemon RSS`, unit: 'MB' },
          { id: `idle.${kase.id}.uss`, key: `${kase.id}.uss`, label: `${kase.label}: daemon private memory (USS)`, unit: 'MB' },
          { id: `idle.${kase.id}.list`, key: `${kase.id}.list`, label: `${kase.label}: \`list\``, unit: 'ms' },
          { id: `idle.${kase.id}.jlist`, key: `${kase.id}.jlist`, label: `${kase.label}: \`jlist\``, unit: 'ms' },
          { id: `idle.${kase.id}.monit`, key: `${kase.id}.monit`, label: `${kase.label}: dashboard CPU while it shows them`, unit: '% of a core' },
          { id: `idle.${kase.id}.monitDaemon`, key: `${kase.id}.monitDaemon`, label: `${kase.label}: daemon CPU while the dashboard runs`, unit: '% of a core' },
          ...(kase.watchShown
            ? [
                { id: `idle.${kase.id}.watchSome`, key: `${kase.id}.watchSome`, label: `${kase.label}: daemon CPU while a subscriber watches ${kase.watchShown} of them, the others pushed when they change (xpm only)`, unit: '% of a core' },
                { id: `idle.${kase.id}.watchSomeLists`, key: `${kase.id}.watchSomeLists`, label: `${kase.label}: daemon CPU while a subscriber watches ${kase.watchShown} of them, every row pushed every second as before (xpm only)`, unit: '% of a core' },
                { id: `idle.${kase.id}.watchAll`, key: `${kase.id}.watchAll`, label: `${kase.label}: daemon CPU while a subscriber watches all of them (xpm only)`, unit: '% of a core' }
              ]
            : []),
          { id: `idle.${kase.id}.kill`, key: `${kase.id}.kill`, label: `${kase.label}: \`kill\` until every process is gone`, unit: 'ms' },
          { id: `idle.${kase.id}.start`, key: `${kase.id}.start`, label: `${kase.label}: \`start\` until \`jlist\` shows all online (not a target; polled once a second)`, unit: 'ms' }
        )
      }
      const out = rows(defs, merged)
      out[0].note = `idle window ${opts.idleS} s after ${QUIET_S} s of quiet, dashboard ${opts.monitS} s, ${opts.lists} \`list\` and \`jlist\` runs per case`
      return out
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
