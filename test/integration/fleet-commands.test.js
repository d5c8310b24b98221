'use strict'

// The commands across hosts for real: 3 sshd "hosts" on loopback, each its own XPM_HOME and real
// daemon (test/helpers/fleet.js); bin/xpm run here with --hosts production / --host.
const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('node:child_process')
const { sshdMissing } = require('../helpers/sshd')
const { startFleet, REMOTE_BIN } = require('../helpers/fleet')
const { fixture, BIN, isAlive } = require('../helpers/xpm')
const { waitFor } = require('../helpers/wait')

const skip = sshdMissing() || false
let f
const hooks = []
before(async () => {
  if (skip) return
  f = await startFleet({ after: (fn) => hooks.push(fn) }, 3)
  for (const h of f.hosts) {
    const r = await h.home.run(['start', fixture('tick-lines.js'), '--name', 'api'], { env: { TICK_MS: '200' } })
    assert.equal(r.code, 0, r.stderr)
  }
  const r = await f.hosts[1].home.run(['start', fixture('idle.js'), '--name', 'worker'])
  assert.equal(r.code, 0, r.stderr)
})
after(async () => { for (const fn of hooks.reverse()) await fn() })

test('list: one table, a host column first; jlist: each process has its host', { skip, timeout: 60000 }, async () => {
  const list = await f.xpm(['list', '--hosts', 'production'])
  assert.equal(list.code, 0, list.stderr)
  const lines = list.stdout.split('\n')
  assert.match(lines[1], /│ host │ id │ name/)
  const rows = lines.filter((l) => /│ h\d /.test(l)).map((l) => l.split('│').map((c) => c.trim()).filter(Boolean).slice(0, 3))
  assert.deepEqual(rows.map((r) => [r[0], r[2]]), [['h1', 'api'], ['h2', 'api'], ['h2', 'worker'], ['h3', 'api']])
  const jlist = await f.xpm(['jlist', '--hosts', 'production'])
  assert.equal(jlist.code, 0, jlist.stderr)
  const procs = JSON.parse(jlist.stdout)
  assert.deepEqual(procs.map((p) => [p.host, p.name, p.status]), [['h1', 'api', 'online'], ['h2', 'api', 'online'], ['h2', 'worker', 'online'], ['h3', 'api', 'online']])
  // --host, as many as given; the remote xpm found through XPM_REMOTE_BIN
  const two = await f.xpm(['jlist', '--host', f.hosts[0].spec, '--host', f.hosts[2].spec], { env: { XPM_REMOTE_BIN: REMOTE_BIN } })
  assert.deepEqual(JSON.parse(two.stdout).map((p) => p.host), [f.hosts[0].spec, f.hosts[2].spec])
})

test('show and why: each host\'s answer under its name; --json: one document, host by host', { skip, timeout: 60000 }, async () => {
  const show = await f.xpm(['show', 'api', '--hosts', 'production'])
  assert.equal(show.code, 0, show.stderr)
  const heads = [...show.stdout.matchAll(/^── (h\d) ──$/gm)].map((m) => m[1])
  assert.deepEqual(heads, ['h1', 'h2', 'h3'])
  assert.equal(show.stdout.split('tick-lines.js').length - 1 >= 3, true)
  const json = await f.xpm(['show', 'worker', '--hosts', 'production', '--json'])
  assert.equal(json.code, 1, 'worker runs on h2 only')
  const doc = JSON.parse(json.stdout)
  assert.deepEqual(doc.hosts.map((h) => [h.host, h.ok, h.error?.code]), [['h1', false, 'XPM_ERR_APP_NOT_FOUND'], ['h2', true, undefined], ['h3', false, 'XPM_ERR_APP_NOT_FOUND']])
  assert.equal(doc.hosts[1].result[0].name, 'worker')
  const why = await f.xpm(['why', 'api', '--hosts', 'production'])
  assert.equal(why.code, 0, why.stderr)
  assert.deepEqual([...why.stdout.matchAll(/^── (h\d) ──$/gm)].map((m) => m[1]), ['h1', 'h2', 'h3'])
})

test('logs: the hosts\' last lines merged in time order, each after its host', { skip, timeout: 60000 }, async () => {
  await waitFor(async () => (await f.hosts[2].home.run(['logs', 'api', '--nostream', '--lines', '5', '--out'])).stdout.split('tick').length > 5, { timeout: 20000 })
  const r = await f.xpm(['logs', 'api', '--hosts', 'production', '--nostream', '--lines', '5', '--json'])
  assert.equal(r.code, 0, r.stderr)
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
  assert.deepEqual(new Set(lines.map((l) => l.host)), new Set(['h1', 'h2', 'h3']))
  for (let i = 1; i < lines.length; i++) assert.ok(lines[i].time >= lines[i - 1].time, 'in time order')
  const text = await f.xpm(['logs', 'api', '--hosts', 'production', '--nostream', '--lines', '2', '--out'])
  assert.match(text.stdout, /^h[123] \d+\|api\| tick \d+$/m)
})

test('stop, start <name>, restart, scale and save on every host; files are refused', { skip, timeout: 90000 }, async () => {
  const statuses = async () => JSON.parse((await f.xpm(['jlist', '--hosts', 'production'])).stdout).filter((p) => p.name === 'worker' || p.host !== 'h2').map((p) => `${p.host}:${p.name}:${p.status}`)
  const stop = await f.xpm(['stop', 'api', '--hosts', 'production'])
  assert.equal(stop.code, 0, stop.stderr + stop.stdout)
  assert.deepEqual([...stop.stdout.matchAll(/^── (h\d) ──$/gm)].map((m) => m[1]), ['h1', 'h2', 'h3'])
  assert.deepEqual(await statuses(), ['h1:api:stopped', 'h2:worker:online', 'h3:api:stopped'])
  const start = await f.xpm(['start', 'api', '--hosts', 'production'])
  assert.equal(start.code, 0, start.stderr)
  assert.deepEqual(await statuses(), ['h1:api:online', 'h2:worker:online', 'h3:api:online'])
  const restart = await f.xpm(['restart', 'api', '--hosts', 'production', '--json'])
  assert.equal(restart.code, 0, restart.stderr)
  assert.deepEqual(JSON.parse(restart.stdout).hosts.map((h) => [h.host, h.ok]), [['h1', true], ['h2', true], ['h3', true]])
  const scale = await f.xpm(['scale', 'worker', '2', '--host', f.hosts[1].spec], { env: { XPM_REMOTE_BIN: REMOTE_BIN } })
  assert.equal(scale.code, 0, scale.stderr)
  assert.equal((await f.hosts[1].home.jlist()).filter((p) => p.name === 'worker').length, 2)
  const save = await f.xpm(['save', '--hosts', 'production', '--json'])
  assert.equal(save.code, 0, save.stderr)
  assert.deepEqual(JSON.parse(save.stdout).hosts.map((h) => h.result.apps), [1, 2, 1])
  for (const args of [['start', 'app.js'], ['start'], ['restart', 'ecosystem.config.js']]) {
    const r = await f.xpm([...args, '--hosts', 'production'])
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, /takes .*\[XPM_ERR_BAD_ARGUMENT\]/)
  }
})

test('a host killed while following logs: the others go on, the host is named, exit 1', { skip, timeout: 90000 }, async () => {
  const child = spawn(process.execPath, [BIN, 'logs', 'api', '--hosts', 'production', '--lines', '0', '--out'], { cwd: f.dir, env: f.env })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { err += d })
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  try {
    await waitFor(() => ['h1', 'h2', 'h3'].every((h) => out.includes(`\n${h} `) || out.startsWith(`${h} `)), { timeout: 30000, message: `lines of 3 hosts (${out.slice(-300)} ${err})` })
    const victim = f.hosts[1].home.daemonPid()
    for (const p of await f.hosts[1].home.jlist()) f.hosts[1].home.track(p.pid)
    process.kill(victim, 'SIGKILL')
    await waitFor(() => /xpm: h2: the connection closed \[XPM_ERR_HOST_UNREACHABLE\]/.test(err), { timeout: 20000, message: `h2 named (${err})` })
    const mark = out.length
    await waitFor(() => /^h1 .*tick/m.test(out.slice(mark)) && /^h3 .*tick/m.test(out.slice(mark)), { timeout: 20000, message: 'h1 and h3 go on' })
    child.kill('SIGINT')
    assert.equal(await exited, 1)
    assert.match(err, /1 of 3 hosts failed: h2/)
  } finally {
    if (isAlive(child.pid)) child.kill('SIGKILL')
  }
})

test('an unreachable host: the others are listed, the host named with ssh\'s reason, exit 1; --json marks it', { skip, timeout: 60000 }, async () => {
  await f.hosts[2].sshd.stop()
  const list = await f.xpm(['list', '--hosts', 'production'])
  assert.equal(list.code, 1)
  assert.match(list.stdout, /│ h1 /)
  assert.doesNotMatch(list.stdout, /│ h3 /)
  assert.match(list.stderr, /xpm: h3: host unreachable: ssh could not connect to 127\.0\.0\.1 port \d+.*\[XPM_ERR_HOST_UNREACHABLE\]/)
  const jlist = await f.xpm(['jlist', '--hosts', 'production'])
  assert.equal(jlist.code, 1)
  const entries = JSON.parse(jlist.stdout)
  assert.deepEqual(entries.at(-1).host, 'h3')
  assert.equal(entries.at(-1).error.code, 'XPM_ERR_HOST_UNREACHABLE')
  assert.ok(entries.some((p) => p.host === 'h1' && p.name === 'api'))
})
