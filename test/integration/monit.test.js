'use strict'

// `xpm monit` in a real terminal: tmux on a private server, the real CLI against a real daemon in
// a private XPM_HOME. Screens are read with capture-pane; monit's stderr goes to a file, because
// the terminal's last lines are whatever the restored screen shows.

const { test, describe, it } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { createHome, waitFor, fixture, isAlive, delay, BIN, ROOT } = require('../helpers/xpm')
const { TmuxSession } = require('../helpers/tmux')

const skip = spawnSync(process.env.XPM_TEST_TMUX || 'tmux', ['-V']).status === 0 ? false : 'tmux is not installed (.ci/run installs it)'

async function start (h, args, env = {}) {
  const res = await h.run(['start', ...args], { env })
  assert.equal(res.code, 0, `xpm start ${args.join(' ')} failed: ${res.stderr}`)
}

// Every process online with an agent report in, so monit has figures to show from its first paint.
async function allReporting (h, count) {
  return waitFor(async () => {
    const list = await h.jlist()
    return list.length === count && list.every((p) => p.status === 'online' && p.metrics && typeof p.metrics.elP99 === 'number' && p.memory > 0) && list
  }, { timeout: 20000, interval: 300, message: `${count} processes online and reporting` })
}

async function startMonit (t, h, { cols = 120, rows = 40 } = {}) {
  const errFile = path.join(h.home, 'monit.stderr')
  const command = `${shellQuote(process.execPath)} ${shellQuote(BIN)} monit 2>${shellQuote(errFile)}`
  const session = await TmuxSession.start({ command, cols, rows, env: h.env, cwd: ROOT })
  t.after(() => session.kill())
  const stderr = () => { try { return fs.readFileSync(errFile, 'utf8') } catch { return '' } }
  return { session, stderr }
}

function shellQuote (arg) {
  return `'${String(arg).replace(/'/g, "'\\''")}'`
}

// A list row: "│  1 api   online   0.0%  43.4 MB│" (id, name, status, cpu, mem).
function listRow (id, name) {
  return new RegExp(`│\\s*${id} ${name}\\s+online\\s+\\d+\\.\\d%\\s+\\d+(\\.\\d)? (MB|KB)\\s*│`)
}

// The one line of the screen holding the detail title of `name #id` ("┌─ api #1 ───").
function detailTitle (name, id) {
  return new RegExp(`┐┌─ ${name} #${id} ─`)
}

describe('xpm monit in a terminal', { concurrency: true, skip }, () => {
  it('shows every process with CPU, memory and latency, moves the selection with j/k, survives a resize, and q exits 0 leaving the alternate screen', async (t) => {
    const h = createHome(t)
    await start(h, [fixture('block-loop.js'), '--name', 'blocked'])
    await start(h, [fixture('idle-http.js'), '--name', 'api', '-i', '2'])
    const procs = await allReporting(h, 3)
    assert.deepEqual(procs.map((p) => [p.id, p.name, p.mode]), [[0, 'blocked', 'fork'], [1, 'api', 'cluster'], [2, 'api', 'cluster']])

    const { session, stderr } = await startMonit(t, h)
    // First paint: the three rows, the header totals, the first process selected with its latency.
    await session.waitForText(/p99 \d+ ms/, { timeout: 15000 })
    await waitFor(async () => {
      const s = await session.capture()
      if (listRow(0, 'blocked').test(s) && listRow(1, 'api').test(s) && listRow(2, 'api').test(s)) return true
      throw new Error(`the screen:\n${s}`)
    }, { timeout: 10000, message: 'three list rows on the screen' })
    const first = await session.capture()
    assert.match(first, /xpm monit {3}3\/3 online {3}CPU \d+\.\d% {3}MEM \d+(\.\d)? MB/)
    assert.match(first, detailTitle('blocked', 0))
    const p99 = Number(first.match(/event loop p95 \S+ ms {2}p99 (\d+) ms {2}util \d+\.\d%/)?.[1])
    assert.ok(p99 >= 150, `the blocked worker's p99 on the screen:\n${first}`)
    assert.match(first, /heap \d+(\.\d)? MB \/ \d+(\.\d)? MB/)
    assert.match(first, /CPU \d+\.\d% {3}max \d+\.\d%/)
    assert.equal(await session.alternateScreen(), true)
    const monitPid = await session.pid()

    await session.sendKeys('j')
    await session.waitForText(detailTitle('api', 1), { timeout: 5000 })
    await session.sendKeys('j')
    const third = await session.waitForText(detailTitle('api', 2), { timeout: 5000 })
    // An idle cluster worker: small latency, the "pid" of that worker.
    assert.match(third, new RegExp(`api\\s+#2 {2}instance 1 {2}online {2}pid ${procs[2].pid}`))
    await session.sendKeys('k')
    await session.waitForText(detailTitle('api', 1), { timeout: 5000 })

    // Smaller, then back: still running, laid out for each size.
    // The detail box starts after the list, whose width follows the terminal's (30 columns at
    // 60, 50 at 120): where its title sits shows monit laid the screen out again.
    const titleColumn = (s) => s.split('\n').map((l) => l.indexOf('┐┌─ api #1 ─')).find((i) => i >= 0)
    assert.equal(titleColumn(await session.capture()), 49)
    await session.resize(60, 15)
    const small = await waitFor(async () => {
      const s = await session.capture()
      return titleColumn(s) === 29 && s.split('\n').length <= 16 && s
    }, { timeout: 5000, message: 'a repaint at 60x15' })
    t.diagnostic(`at 60x15:\n${small}`)
    assert.ok(isAlive(monitPid), 'monit survives the resize to 60x15')
    await session.resize(120, 40)
    const restored = await waitFor(async () => {
      const s = await session.capture()
      return titleColumn(s) === 49 && /↑↓\/jk select {3}q quit/.test(s) && s
    }, { timeout: 5000, message: 'a repaint at 120x40' })
    assert.match(restored, listRow(0, 'blocked'))
    assert.ok(isAlive(monitPid))

    await session.sendKeys('q')
    assert.equal(await session.waitForExit({ timeout: 5000 }), 0)
    assert.equal(await session.alternateScreen(), false, 'the terminal is back on the normal screen')
    assert.equal(stderr(), '')
    assert.equal(isAlive(monitPid), false)
  })

  it('issue 34: the log pane shows what a quiet app wrote before monit started, for each process selected', async (t) => {
    const h = createHome(t)
    await start(h, [fixture('out-and-err.js'), '--name', 'quiet'], { LINES: '3' })
    await start(h, [fixture('out-and-err.js'), '--name', 'later'], { LINES: '2' })
    await waitFor(async () => {
      const res = await h.run(['logs', '--nostream', '--lines', '20', '--raw'])
      return ['out 3', 'err 3', 'out 2', 'err 2'].every((l) => res.stdout.includes(l))
    }, { timeout: 15000, message: 'both apps\' lines in the daemon' })
    const { session, stderr } = await startMonit(t, h)
    // the pane's lines: "│<time> out 3 …│", the time of each line as the daemon received it
    const paneLine = (text) => new RegExp(`│\\d{2}:\\d{2}:\\d{2} ${text}\\s*│`)
    const first = await session.waitForText(/Logs: quiet #0/, { timeout: 15000 })
    const quiet = await waitFor(async () => {
      const s = await session.capture()
      return ['out 1', 'err 1', 'out 3', 'err 3'].every((l) => paneLine(l).test(s)) && s
    }, { timeout: 5000, message: `quiet's lines in the log pane, the screen:\n${first}` })
    assert.ok(!quiet.includes('no output yet'), quiet)
    await session.sendKeys('j')
    await session.waitForText(/Logs: later #1/, { timeout: 5000 })
    const later = await waitFor(async () => {
      const s = await session.capture()
      return paneLine('err 2').test(s) && s
    }, { timeout: 5000, message: 'later\'s lines in the log pane' })
    assert.ok(!paneLine('out 3').test(later), `only the selected process's lines:\n${later}`)
    await session.sendKeys('q')
    assert.equal(await session.waitForExit({ timeout: 5000 }), 0)
    assert.equal(stderr(), '')
  })

  it('the daemon killed (SIGTERM): monit restores the terminal, says the daemon went away and exits 1', async (t) => {
    const h = createHome(t)
    await start(h, [fixture('idle-http.js'), '--name', 'lonely'])
    await allReporting(h, 1)
    const { session, stderr } = await startMonit(t, h)
    await session.waitForText(listRow(0, 'lonely'), { timeout: 15000 })
    assert.equal(await session.alternateScreen(), true)

    const daemon = h.daemonPid()
    assert.ok(daemon > 0 && isAlive(daemon))
    process.kill(daemon, 'SIGTERM')
    assert.equal(await session.waitForExit({ timeout: 15000 }), 1)
    assert.equal(stderr(), 'xpm monit: the xpm daemon went away\n')
    assert.equal(await session.alternateScreen(), false, 'the terminal is back on the normal screen')
  })
})

// Alone, after the others, so the figure is monit's own: measured, not asserted (the machine is shared).
test('monit CPU with 8 workers (measured over ~10 s, not asserted)', { skip }, async (t) => {
  const h = createHome(t)
  await start(h, [fixture('idle-http.js'), '--name', 'web', '-i', '6'])
  await start(h, [fixture('tick-lines.js'), '--name', 'ticker', '-i', '2'], { TICK_MS: '100' })
  await allReporting(h, 8)
  const { session } = await startMonit(t, h)
  await session.waitForText(listRow(7, 'ticker'), { timeout: 15000 })
  const pid = await session.pid()
  // Select a ticker so its log lines are painted too.
  await session.sendKeys('G')
  await session.waitForText(/Logs: ticker #7/, { timeout: 5000 })

  const ticks = () => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12]) // utime + stime, in clock ticks (1/100 s)
  }
  const t0 = performance.now()
  const c0 = ticks()
  await delay(10000) // the window the CPU use is measured over (reported, not asserted)
  const cpu = (ticks() - c0) / 100 / ((performance.now() - t0) / 1000) * 100
  t.diagnostic(`monit CPU with 8 workers (6 idle HTTP, 2 logging 10 lines/s each, a logging one selected): ${cpu.toFixed(2)}% of one core over ${((performance.now() - t0) / 1000).toFixed(1)} s`)

  await session.sendKeys('q')
  assert.equal(await session.waitForExit({ timeout: 5000 }), 0)
})
