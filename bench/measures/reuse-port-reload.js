#!/usr/bin/env node
'use strict'

// Failed requests during reloads (and a scale down and up) of a 2-worker app, round-robin against reuse_port, with the
// kernel's net.ipv4.tcp_migrate_req as it is here and (--both) at 1 in a user + network
// namespace of its own (`unshare -rn`, where root of the namespace may set it). Closing a
// SO_REUSEPORT listener resets the connections queued on it unless tcp_migrate_req is 1, which
// moves them to another listener of the group; with round-robin the daemon holds the one
// listening socket and a worker leaving resets nothing.
//
//   node bench/measures/reuse-port-reload.js [--reloads 5] [--both] [--json]
//
// Needs Node >= 22.12 (run it with that Node: xpm's daemon and workers run the same one) and
// wrk. Every process runs without NODE_EXTRA_CA_CERTS (bench/lib/util.js). Writes
// bench/results/reuse-port-reload.json.
const fs = require('node:fs')
const path = require('node:path')
const { Xpm } = require('../lib/xpm')
const { HELLO, waitHttp } = require('../lib/apps')
const { startLoad } = require('../lib/client-load')
const { run, freePort, delay, benchEnv } = require('../lib/util')

function args (argv) {
  const opts = { reloads: 5, both: false, json: false }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--reloads') opts.reloads = Number(argv[++i])
    else if (argv[i] === '--both') opts.both = true
    else if (argv[i] === '--json') opts.json = true
    else throw new Error(`unknown option ${argv[i]}`)
  }
  return opts
}

function migrateReq () {
  try { return Number(fs.readFileSync('/proc/sys/net/ipv4/tcp_migrate_req', 'utf8')) } catch { return null }
}

// wrk with a new connection per request for `seconds`; resolves its socket errors by kind.
async function wrkClose (port, seconds) {
  const res = await run('wrk', ['-t1', '-c50', `-d${seconds}s`, '--timeout', '5s', '-H', 'Connection: close', `http://127.0.0.1:${port}/`], { timeout: (seconds + 30) * 1000 })
  const m = res.stdout.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/)
  const requests = Number(res.stdout.match(/(\d+) requests in/)?.[1] || 0)
  const [connect, read, write, timeout] = m ? m.slice(1).map(Number) : [0, 0, 0, 0]
  const non2xx = Number(res.stdout.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] || 0)
  return { requests, failed: connect + read + write + timeout + non2xx, errors: { connect, read, write, timeout, non2xx } }
}

async function reloadsUnderLoad (xpm, name, port, reloads) {
  const fresh = startLoad(port, { concurrency: 10, keepAlive: false, timeout: 5000 })
  const kept = startLoad(port, { concurrency: 10, keepAlive: true, timeout: 5000 })
  const seconds = 2 + reloads
  const wrk = wrkClose(port, seconds)
  const t0 = Date.now()
  await delay(500)
  const durations = []
  for (let i = 0; i < reloads; i++) durations.push(Math.round((await xpm.reload(name)).ms))
  await delay(Math.max(300, seconds * 1000 - (Date.now() - t0) + 200))
  const [a, b, w] = [await fresh.stop(), await kept.stop(), await wrk]
  const pick = (s) => ({ ok: s.ok, failed: s.failed, errors: s.errors })
  return { reloadMs: durations, newConnections: pick(a), keepAlive: pick(b), wrkConnectionClose: w }
}

// `scale 1` then `scale 2` under the same load: scaling down retires a worker with no
// replacement, whose socket closes (round-robin keeps the one socket in the daemon).
async function scaleUnderLoad (xpm, name, port) {
  const fresh = startLoad(port, { concurrency: 10, keepAlive: false, timeout: 5000 })
  const wrk = wrkClose(port, 4)
  await delay(500)
  await xpm.cliOk(['scale', name, '1'])
  await delay(500)
  await xpm.cliOk(['scale', name, '2'])
  const [a, w] = [await fresh.stop(), await wrk]
  return { newConnections: { ok: a.ok, failed: a.failed, errors: a.errors }, wrkConnectionClose: w }
}

async function measureHere (reloads) {
  const xpm = new Xpm()
  const out = { node: process.version, tcpMigrateReq: migrateReq(), reloads, modes: {} }
  try {
    for (const [mode, extra] of [['round-robin', []], ['reuse_port', ['--reuse-port']]]) {
      const port = await freePort()
      const name = mode === 'round-robin' ? 'rr' : 'rp'
      await xpm.cliOk(['start', HELLO, '--name', name, '-i', '2', ...extra], { env: { PORT: String(port) } })
      xpm.track(xpm.daemonPid())
      await waitHttp(port)
      out.modes[mode] = await reloadsUnderLoad(xpm, name, port, reloads)
      out.modes[mode].scale = await scaleUnderLoad(xpm, name, port)
      await xpm.remove(name)
    }
  } finally {
    await xpm.destroy()
  }
  return out
}

// The same script inside `unshare -rn` with tcp_migrate_req=1 (loopback up), its JSON read back.
async function measureMigrating (reloads) {
  const script = `ip link set lo up && sysctl -qw net.ipv4.tcp_migrate_req=1 && exec "${process.execPath}" "${__filename}" --json --reloads ${reloads}`
  const res = await run('unshare', ['-rn', 'sh', '-c', script], { env: benchEnv(), timeout: 300000 })
  if (res.code !== 0) return { error: `unshare -rn failed (${res.code}): ${res.stderr.trim().slice(0, 300)}` }
  return JSON.parse(res.stdout)
}

async function main () {
  const opts = args(process.argv.slice(2))
  const results = [await measureHere(opts.reloads)]
  if (opts.both && results[0].tcpMigrateReq !== 1) results.push(await measureMigrating(opts.reloads))
  if (opts.json) {
    process.stdout.write(JSON.stringify(results.length === 1 ? results[0] : results))
    return
  }
  for (const r of results) {
    if (r.error) { console.log(r.error); continue }
    console.log(`\nNode ${r.node}, tcp_migrate_req=${r.tcpMigrateReq}, ${r.reloads} reloads of -i 2 under load`)
    for (const [mode, m] of Object.entries(r.modes)) {
      const e = (s) => `${s.failed} failed / ${s.ok ?? s.requests}${s.failed ? ' ' + JSON.stringify(s.errors) : ''}`
      console.log(`  ${mode.padEnd(12)} new-conn clients: ${e(m.newConnections)}; keep-alive: ${e(m.keepAlive)}; wrk Connection: close -c50: ${e(m.wrkConnectionClose)}; reload ms ${m.reloadMs.join(', ')}`)
      console.log(`  ${''.padEnd(12)} scale 2 → 1 → 2: new-conn clients: ${e(m.scale.newConnections)}; wrk Connection: close -c50: ${e(m.scale.wrkConnectionClose)}`)
    }
  }
  const file = path.join(__dirname, '..', 'results', 'reuse-port-reload.json')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), unsetEnv: ['NODE_EXTRA_CA_CERTS'], results }, null, 2) + '\n')
}

main().catch((err) => { console.error(err); process.exitCode = 1 })
