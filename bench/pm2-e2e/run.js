#!/usr/bin/env node
'use strict'

// node bench/pm2-e2e/run.js <pm2-source-checkout> --pm2 <installed pm2 package folder>
//        [--contenders pm2,xpm] [--only cli/reload,dump] [--timeout 120] [--retries 1] [--work <dir>] [--keep]
//        [--private-net] [--all]
// Runs the e2e scripts of PM2's repository (those its test/e2e.sh runs; with --all every script
// of its test/e2e/, those it leaves out too) against PM2 itself and
// against xpm through the shims of shims.js, one script at a time, PM2 first (the reference), and
// prints a table: script, PM2 pass/fail, xpm pass/fail, xpm's first failing line. PM2's test files
// are read from the checkout given and copied under --work; they are never part of xpm (AGPL).
// Each contender runs in a mount namespace of its own whose /tmp is <work>/<contender>-tmp (the
// scripts share fixed names such as /tmp/tmp_out.txt, so PM2 and xpm can run side by side, and
// nothing lands in the machine's /tmp). Each script gets a fresh copy of the test tree and a
// private HOME there (so ~/.pm2, PM2_HOME and XPM_HOME are private); afterwards its daemon is
// killed (`pm2 kill`, then by pid every process left whose environment holds that HOME).
// NODE_EXTRA_CA_CERTS is unset for every contender. Needs root (unshare, mount --bind). With
// --private-net each script also gets a network namespace with loopback only, so the fixed ports
// of PM2's fixtures (8000, 8004, …) cannot meet another run's (two contenders side by side).
// Results: <work>/results-<contenders>.json.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { pm2Shims, xpmShims, writeShims, XPM_ROOT } = require('./shims')

const PM2_INSIDE = '/tmp/pm2-install/node_modules/pm2' // the installed PM2, copied into each contender's /tmp
const { listScripts, firstFailure, leftoverPids } = require('./scripts')

function parseArgs (argv) {
  const opts = { contenders: ['pm2', 'xpm'], only: null, timeout: 120, retries: 1, privateNet: false, keep: false, work: path.join(os.tmpdir(), `xpm-pm2-e2e-${process.pid}`) }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--pm2') opts.pm2 = path.resolve(argv[++i])
    else if (a === '--contenders') opts.contenders = argv[++i].split(',')
    else if (a === '--only') opts.only = argv[++i].split(',')
    else if (a === '--timeout') opts.timeout = Number(argv[++i])
    else if (a === '--retries') opts.retries = Number(argv[++i])
    else if (a === '--work') opts.work = path.resolve(argv[++i])
    else if (a === '--keep') opts.keep = true
    else if (a === '--private-net') opts.privateNet = true
    else if (a === '--all') opts.all = true
    else if (!a.startsWith('-') && !opts.src) opts.src = path.resolve(a)
    else throw new Error(`unknown argument ${a} (see the comment at the top of ${__filename})`)
  }
  if (!opts.src || !fs.existsSync(path.join(opts.src, 'test', 'e2e.sh'))) throw new Error('give the path of a PM2 source checkout (with test/e2e.sh)')
  // PM2's fixtures require PM2's own modules/ (../../../modules/pm2-io-bpm): both contenders need them
  if (!opts.pm2 || !fs.existsSync(path.join(opts.pm2, 'modules'))) throw new Error('--pm2 <folder of the installed pm2 package> is needed (its modules/ are required by the fixtures)')
  if (XPM_ROOT.startsWith('/tmp/')) throw new Error(`xpm (${XPM_ROOT}) must not live under /tmp: each contender gets a /tmp of its own`)
  return opts
}

function contenderEnv (home) {
  const env = { ...process.env, HOME: home, PM2_SILENT: 'true' }
  for (const k of ['NODE_EXTRA_CA_CERTS', 'XPM_HOME', 'PM2_HOME', 'PM2_PID_FILE_PATH', 'XPM_TEST_CONCURRENCY']) delete env[k]
  return env
}

// A command run with <privateTmp> as /tmp, in <cwd> (a path as seen inside).
function inPrivateTmp (privateTmp, cwd, argv, { net = false } = {}) {
  const quote = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'"
  const lo = net ? 'ip link set lo up && ' : ''
  return ['unshare', [net ? '-mn' : '-m', 'sh', '-c', `${lo}mount --bind ${quote(privateTmp)} /tmp && cd ${quote(cwd)} && exec ${argv.map(quote).join(' ')}`]]
}

// One script under one contender: its own tree and HOME, `nice`, a deadline; then cleanup.
async function runOne (opts, contender, script, index) {
  const privateTmp = path.join(opts.work, `${contender}-tmp`)
  // a name of its own on the machine: daemons find their leftovers by the path of their home
  const name = `${contender}-${process.pid}-${String(index).padStart(2, '0')}`
  const tree = path.join(privateTmp, name)
  const inside = path.join('/tmp', name)
  fs.rmSync(tree, { recursive: true, force: true })
  fs.cpSync(path.join(opts.src, 'test'), path.join(tree, 'test'), { recursive: true })
  // modes as a `git clone` under umask 022 leaves them (an archive extracted by root keeps 0775,
  // and xpm refuses to write logs into a folder others can write: docs/logs.md)
  spawnSync('chmod', ['-R', 'go-w', path.join(tree, 'test')])
  // as in a checkout of PM2: the fixtures' helpers (modules/) and their dependencies (node_modules)
  fs.symlinkSync(path.join(PM2_INSIDE, 'modules'), path.join(tree, 'modules'))
  fs.symlinkSync(path.dirname(PM2_INSIDE), path.join(tree, 'node_modules'))
  writeShims(path.join(tree, 'bin'), contender === 'pm2' ? pm2Shims(PM2_INSIDE) : xpmShims())
  fs.mkdirSync(path.join(tree, 'home'))
  const home = path.join(inside, 'home')
  const env = contenderEnv(home)
  const logFile = path.join(opts.work, contender, `${script.replace(/^\.\/test\/e2e\//, '').replace(/[/.]/g, '_')}.log`)
  fs.mkdirSync(path.dirname(logFile), { recursive: true })
  const out = fs.openSync(logFile, 'w')
  const started = Date.now()
  const [cmd, args] = inPrivateTmp(privateTmp, inside, ['nice', '-n', '10', 'bash', script], { net: opts.privateNet })
  const child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', out, out] })
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; try { process.kill(-child.pid, 'SIGKILL') } catch {} }, opts.timeout * 1000)
  const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? sig)))
  clearTimeout(timer)
  fs.closeSync(out)
  const seconds = (Date.now() - started) / 1000
  cleanUp(privateTmp, inside, env, home)
  const log = fs.readFileSync(logFile, 'utf8')
  const pass = code === 0 && !timedOut
  const result = { script, pass, code, seconds: Math.round(seconds * 10) / 10, log: logFile }
  if (!pass) result.failure = timedOut ? `timeout after ${opts.timeout} s (${firstFailure(log, path.join(tree, script)) || 'no failed step'})` : firstFailure(log, path.join(tree, script)) || `exit ${code}`
  if (!opts.keep) fs.rmSync(tree, { recursive: true, force: true })
  return result
}

function cleanUp (privateTmp, inside, env, home) {
  const [cmd, args] = inPrivateTmp(privateTmp, inside, ['bin/pm2', 'kill'])
  spawnSync(cmd, args, { env, stdio: 'ignore', timeout: 30000 })
  for (const pid of leftoverPids(home)) { try { process.kill(pid, 'SIGKILL') } catch {} }
}

function table (scripts, results) {
  const mark = (r) => r ? (r.pass ? 'pass' : 'FAIL') : '—'
  const lines = ['| script | PM2 | xpm | xpm\'s first failure |', '|---|---|---|---|']
  for (const s of scripts) {
    const p = results.pm2?.[s]; const x = results.xpm?.[s]
    lines.push(`| ${s.replace(/^\.\/test\/e2e\//, '').replace(/\.sh$/, '')} | ${mark(p)} | ${mark(x)} | ${x && !x.pass ? x.failure.replace(/\|/g, '\\|') : ''} |`)
  }
  const count = (c) => results[c] ? `${Object.values(results[c]).filter((r) => r.pass).length}/${scripts.length}` : '—'
  lines.push('', `PM2 ${count('pm2')}, xpm ${count('xpm')}`)
  return lines.join('\n')
}

async function main () {
  const opts = parseArgs(process.argv.slice(2))
  const scripts = listScripts(opts.src, opts.only, opts.all)
  const results = {}
  const version = opts.pm2 ? JSON.parse(fs.readFileSync(path.join(opts.pm2, 'package.json'), 'utf8')).version : null
  for (const contender of opts.contenders) {
    results[contender] = {}
    const privateTmp = path.join(opts.work, `${contender}-tmp`)
    fs.mkdirSync(privateTmp, { recursive: true })
    fs.cpSync(path.dirname(opts.pm2), path.join(privateTmp, 'pm2-install', 'node_modules'), { recursive: true })
    for (const [i, script] of scripts.entries()) {
      // a failed script runs once more, as PM2's own runner (test/e2e.sh's runTest) does
      let r = await runOne(opts, contender, script, i)
      for (let n = 0; !r.pass && n < opts.retries; n++) r = { ...(await runOne(opts, contender, script, i)), firstTry: r.failure }
      results[contender][script] = r
      process.stderr.write(`${contender} ${r.pass ? 'pass' : 'FAIL'} ${script} (${r.seconds} s)${r.pass ? '' : ': ' + r.failure}\n`)
    }
  }
  const summary = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, pm2Version: version, timeout: opts.timeout, retries: opts.retries, privateNet: opts.privateNet, results }
  fs.writeFileSync(path.join(opts.work, `results-${opts.contenders.join('-')}.json`), JSON.stringify(summary, null, 2))
  console.log(table(scripts, results))
}

main().catch((err) => { console.error(err.message); process.exit(2) })
