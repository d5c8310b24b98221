'use strict'

// Issue 15: 300 processes of a tiny program (a shell script that prints one line and sleeps)
// under one daemon: `list`, `jlist`, `show`, `monit` (in tmux) and `logs` all answer with every
// process in them, and `kill` ends every one of them.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { createHome, waitFor, fixture, isAlive, BIN, ROOT } = require('../helpers/xpm')
const { TmuxSession } = require('../helpers/tmux')

const COUNT = 300
const tmux = spawnSync(process.env.XPM_TEST_TMUX || 'tmux', ['-V']).status === 0

function shellQuote (arg) {
  return `'${String(arg).replace(/'/g, "'\\''")}'`
}

test(`${COUNT} processes of a tiny program: list, jlist, show, monit and logs answer; kill ends them all`, { timeout: 120000 }, async (t) => {
  const h = createHome(t)
  const started = await h.run(['start', fixture('tiny-sleeper.sh'), '--name', 'tiny', '-i', String(COUNT), '--merge-logs'], { timeout: 90000 })
  assert.equal(started.code, 0, started.stderr)

  const list = await waitFor(async () => {
    const rows = await h.jlist()
    return rows.length === COUNT && rows.every((p) => p.status === 'online' && p.pid > 0) && rows
  }, { timeout: 60000, interval: 500, message: `${COUNT} processes online` })
  const pids = list.map((p) => p.pid)
  assert.equal(new Set(pids).size, COUNT)
  assert.deepEqual(list.map((p) => p.instance), Array.from({ length: COUNT }, (_, i) => i))

  const table = await h.run(['list'])
  assert.equal(table.code, 0, table.stderr)
  const rows = table.stdout.split('\n').filter((line) => /│ \d+\s+│ tiny/.test(line))
  assert.equal(rows.length, COUNT)
  assert.ok(rows.every((row) => /│ online\s+│ \d+%\s+│ \d+(\.\d)? [KMG]B\s+│$/.test(row)), rows.find((row) => !/online/.test(row)))

  const shown = await h.run(['show', 'tiny'])
  assert.equal(shown.code, 0, shown.stderr)
  assert.equal(shown.stdout.split('\n').filter((line) => /^│ name\s+│ tiny \(id \d+, instance \d+\) +│$/.test(line)).length, COUNT)
  const one = await h.run(['show', String(list[COUNT - 1].id), '--json'])
  assert.equal(one.code, 0, one.stderr)
  assert.equal(JSON.parse(one.stdout)[0].pid, pids[COUNT - 1])

  // Every process said it was up; the lines come back from memory or from the file.
  const logs = await h.run(['logs', 'tiny', '--nostream', '--raw', '--lines', String(COUNT)])
  assert.equal(logs.code, 0, logs.stderr)
  const ups = new Set(logs.stdout.split('\n').filter((l) => l.startsWith('up ')).map((l) => Number(l.slice(3))))
  assert.deepEqual(pids.filter((pid) => !ups.has(pid)), [])

  if (tmux) {
    const errFile = path.join(h.home, 'monit.stderr')
    const command = `${shellQuote(process.execPath)} ${shellQuote(BIN)} monit 2>${shellQuote(errFile)}`
    const session = await TmuxSession.start({ command, cols: 120, rows: 40, env: h.env, cwd: ROOT })
    t.after(() => session.kill())
    await session.waitForText(`${COUNT}/${COUNT} online`, { timeout: 20000 })
    await session.waitForText(/│\s*0 tiny\s+online/, { timeout: 10000 })
    // The last row is one key away; the list scrolls to it.
    await session.sendKeys('G')
    await session.waitForText(new RegExp(`│\\s*${list[COUNT - 1].id} tiny\\s+online`), { timeout: 10000 })
    await session.sendKeys('q')
    assert.equal(await session.waitForExit({ timeout: 10000 }), 0, fs.existsSync(errFile) ? fs.readFileSync(errFile, 'utf8') : '')
  } else {
    t.diagnostic('tmux is not installed: monit not checked')
  }

  const daemon = h.daemonPid()
  const killed = await h.run(['kill'], { timeout: 60000 })
  assert.equal(killed.code, 0, killed.stderr)
  await waitFor(() => !isAlive(daemon) && pids.every((pid) => !isAlive(pid)), { timeout: 20000, interval: 100, message: 'the daemon and every process gone' })
  assert.deepEqual(pids.filter(isAlive), [])
})
