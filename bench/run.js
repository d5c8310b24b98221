#!/usr/bin/env node
'use strict'

// npm run bench [-- --quick] [--only cli,memory] [--rounds N] [--loader wrk|autocannon] [--fresh-tools]
//                 [--scale-apps 10,100,300] [--scale-fleet 10x100] [--idle-procs 1000] [--no-write] [--render]
// Runs every measure in bench/measures against xpm, PM2 and a bare node:cluster primary, writes
// docs/benchmarks.md and bench/results/latest.json, and prints the tables. With --only, the
// measures not rerun are carried over from the previous bench/results/latest.json, marked with
// the date they were measured.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { ensureTools } = require('./lib/tools')
const { UNSET_ENV } = require('./lib/util')
const { render } = require('./lib/report')
const { Xpm, ROOT: XPM_ROOT } = require('./lib/xpm')
const { Pm2 } = require('./lib/pm2')
const { Raw } = require('./lib/raw')

const MEASURES = ['cli', 'memory', 'throughput', 'reload', 'logs', 'monit', 'crash', 'scale', 'idle', 'web', 'watch']
const ROOT = path.join(__dirname, '..')

// `10x100`: 10 apps of 100 instances each (the scale measure's 1,000-process case).
function parseFleet (text) {
  const m = /^(\d+)x(\d+)$/.exec(String(text))
  if (!m || !(Number(m[1]) > 0 && Number(m[2]) > 0 && Number(m[1]) * Number(m[2]) <= 2000)) throw new Error('--scale-fleet expects APPSxINSTANCES, e.g. 10x100 (at most 2,000 processes)')
  return { apps: Number(m[1]), instances: Number(m[2]) }
}

function parseArgs (argv) {
  const opts = { quick: false, only: MEASURES, rounds: null, loader: null, freshTools: false, write: true, scaleApps: null, idleProcs: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--quick') opts.quick = true
    else if (a === '--only') opts.only = argv[++i].split(',').map((s) => s.trim()).filter(Boolean)
    else if (a === '--rounds') opts.rounds = Number(argv[++i])
    else if (a === '--loader') opts.loader = argv[++i]
    else if (a === '--fresh-tools') opts.freshTools = true
    else if (a === '--no-write') opts.write = false
    else if (a === '--render') opts.render = true
    else if (a === '--scale-apps') opts.scaleApps = String(argv[++i]).split(',').map((s) => Number(s.trim()))
    else if (a === '--idle-procs') opts.idleProcs = Number(argv[++i])
    else if (a === '--scale-fleet') opts.scaleFleet = parseFleet(argv[++i])
    else if (a === '-h' || a === '--help') {
      console.log('usage: node bench/run.js [--quick] [--only ' + MEASURES.join(',') + '] [--rounds N] [--loader wrk|autocannon] [--fresh-tools] [--scale-apps 10,100] [--scale-fleet 10x100] [--idle-procs 1000] [--no-write] [--render]')
      process.exit(0)
    } else throw new Error(`unknown option ${a}`)
  }
  const unknown = opts.only.filter((n) => !MEASURES.includes(n))
  if (unknown.length) throw new Error(`unknown measure ${unknown.join(', ')}; expected some of ${MEASURES.join(', ')}`)
  if (opts.loader && !['wrk', 'autocannon'].includes(opts.loader)) throw new Error(`--loader expects wrk or autocannon, got ${opts.loader}`)
  if (opts.scaleApps && !opts.scaleApps.every((n) => Number.isInteger(n) && n > 0)) throw new Error('--scale-apps expects positive integers, e.g. 10,100,300')
  if (opts.rounds !== null && !(Number.isInteger(opts.rounds) && opts.rounds > 0)) throw new Error('--rounds expects a positive integer')
  if (opts.idleProcs !== null && !(Number.isInteger(opts.idleProcs) && opts.idleProcs > 0 && opts.idleProcs <= 1024)) throw new Error('--idle-procs expects a whole number from 1 to 1024')
  return opts
}

// Which code was measured: the commit, and whether the working tree had uncommitted changes; the
// folder when it is not a git checkout (XPM_BENCH_ROOT=<unpacked archive>).
function checkout (dir) {
  const git = (args) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' })
  const head = git(['rev-parse', '--show-toplevel', '--short', 'HEAD'])
  const [top, commit] = head.status === 0 ? head.stdout.trim().split('\n') : []
  if (!commit || path.resolve(top) !== path.resolve(dir)) return dir
  const dirty = git(['status', '--porcelain', '--untracked-files=no']).stdout.trim() !== ''
  return dirty ? `${commit} with uncommitted changes` : commit
}

function machine (tools, loader) {
  return {
    cpu: os.cpus()[0]?.model.trim() || 'unknown',
    cores: os.availableParallelism(),
    ramGB: Math.round(os.totalmem() / 1024 ** 3 * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    xpm: `${require(path.join(XPM_ROOT, 'package.json')).version} (${checkout(XPM_ROOT)})`,
    pm2: tools.pm2,
    loader: loader === 'wrk' ? `wrk ${tools.wrk}` : `autocannon ${tools.autocannon}`,
    date: new Date().toISOString(),
    // The machine is shared: how busy it was (1, 5, 15 min load averages; end filled in later).
    load: { start: os.loadavg().map((x) => Math.round(x * 100) / 100), end: null }
  }
}

// The results to write: this run's measures, plus those of the previous latest.json that this
// run did not rerun (each keeps the date and machine it was measured on), in the order of
// MEASURES.
function carryOver (results, file) {
  let previous = null
  try { previous = JSON.parse(fs.readFileSync(file, 'utf8')) } catch {}
  const ran = new Set(results.measures.map((m) => m.name))
  const kept = (previous?.measures || []).filter((m) => !ran.has(m.name) && MEASURES.includes(m.name))
    .map((m) => ({ ...m, date: m.date || previous.machine?.date, machine: m.machine || previous.machine, carried: true }))
  if (!kept.length) return results
  const measures = [...results.measures, ...kept].sort((a, b) => MEASURES.indexOf(a.name) - MEASURES.indexOf(b.name))
  return { ...results, measures }
}

// bench/findings.md: what the figures do not say by themselves (where the time goes, what was
// tried and left out), written by hand and rendered after the targets.
function readFindings () {
  try { return fs.readFileSync(path.join(__dirname, 'findings.md'), 'utf8') } catch { return null }
}

async function main () {
  const opts = parseArgs(process.argv.slice(2))
  const latest = path.join(__dirname, 'results', 'latest.json')
  if (opts.render) {
    // docs/benchmarks.md again from latest.json and findings.md, nothing measured.
    fs.writeFileSync(path.join(ROOT, 'docs', 'benchmarks.md'), render({ ...JSON.parse(fs.readFileSync(latest, 'utf8')), findings: readFindings() }))
    return
  }
  const log = (msg) => process.stderr.write(`${msg}\n`)
  const started = performance.now()
  const tools = await ensureTools({ fresh: opts.freshTools, log })
  if (opts.loader === 'wrk' && !tools.wrk) throw new Error('--loader wrk: wrk is not installed')
  const loader = opts.loader || (tools.wrk ? 'wrk' : 'autocannon')

  const live = new Set()
  const make = { xpm: () => new Xpm(), pm2: () => new Pm2({ toolsDir: tools.dir }), raw: () => new Raw() }
  const release = async (c) => {
    live.delete(c)
    await c.destroy().catch((err) => log(`  cleanup of ${c.name} failed: ${err.message}`))
  }
  const releaseAll = async () => { for (const c of [...live]) await release(c) }
  let interrupted = false
  const onSignal = async (sig) => {
    if (interrupted) return
    interrupted = true
    log(`\n${sig}: cleaning up`)
    await releaseAll()
    process.exit(130)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)

  const ctx = {
    quick: opts.quick,
    loader,
    tools,
    log,
    rounds: (normal, quick) => opts.rounds || (opts.quick ? quick : normal),
    scaleApps: opts.scaleApps,
    scaleFleet: opts.scaleFleet || null,
    idleProcs: opts.idleProcs,
    contenders: (names) => names.map((n) => {
      const c = make[n]()
      live.add(c)
      return c
    }),
    release
  }

  const runMachine = machine(tools, loader)
  const measures = []
  for (const name of opts.only) {
    const mod = require(`./measures/${name}`)
    const t0 = performance.now()
    log(`[bench] ${name}: ${mod.title}`)
    const entry = { name, title: mod.title, description: mod.description, columns: mod.columns, date: new Date().toISOString(), unsetEnv: UNSET_ENV }
    try {
      entry.rows = await mod.run(ctx)
    } catch (err) {
      entry.error = err.message
      log(`  failed: ${err.message}`)
    } finally {
      await releaseAll()
    }
    entry.seconds = (performance.now() - t0) / 1000
    log(`  done in ${entry.seconds.toFixed(1)} s`)
    measures.push(entry)
  }

  const results = {
    machine: { ...runMachine, load: { ...runMachine.load, end: os.loadavg().map((x) => Math.round(x * 100) / 100) } },
    options: { quick: opts.quick, only: opts.only, rounds: opts.rounds, scaleApps: opts.scaleApps, scaleFleet: opts.scaleFleet || null, idleProcs: opts.idleProcs, xpmNoMetrics: process.env.XPM_BENCH_NO_METRICS === '1', unsetEnv: UNSET_ENV },
    seconds: (performance.now() - started) / 1000,
    measures
  }
  if (opts.write) {
    const written = carryOver(results, latest)
    fs.mkdirSync(path.dirname(latest), { recursive: true })
    fs.writeFileSync(latest, JSON.stringify(written, null, 2) + '\n')
    fs.writeFileSync(path.join(ROOT, 'docs', 'benchmarks.md'), render({ ...written, findings: readFindings() }))
  }
  process.stdout.write(render(results))
}

main().catch((err) => {
  console.error(`bench: ${err.message}`)
  process.exit(1)
})
