'use strict'

// A new pid reaches state.json up to 1 s after its fork (daemon/persistence/state-keeper.js,
// docs/persistence.md "What is saved, and when"): a daemon killed inside that second leaves a
// state.json without it, and the next daemon still ends it, through the home's tree tag.
// The daemon is stopped (SIGSTOP) before state.json is read, so what is read is what it leaves.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { createHome, waitFor, fixture } = require('../helpers/xpm')
const { running, describeProc } = require('../helpers/procs')

const appPids = (file) => {
  let text = ''
  try { text = fs.readFileSync(file, 'utf8') } catch {}
  return text.trim().split('\n').filter((l) => l.startsWith('app ')).map((l) => Number(l.split(' ')[1]))
}
const recorded = (home) => JSON.parse(fs.readFileSync(path.join(home, 'state.json'), 'utf8')).processes.map((p) => p.pid)

test('a daemon killed before a restart\'s new pid is in state.json: the next daemon ends that process all the same', async (t) => {
  const h = createHome(t)
  const file = path.join(h.home, 'tree.pids')
  t.after(() => { for (const pid of appPids(file)) try { process.kill(pid, 'SIGKILL') } catch {} })
  // no agent: a fork-mode app that outlives its daemon, as a program in another language does
  const env = { TREE_PIDS: file, TREE_KINDS: 'idle', XPM_AGENT: '0' }
  const res = await h.run(['start', fixture('tree-app.js'), '--name', 'f', '--kill-timeout', '1000', '--min-uptime', '0', '--max-restarts', '100'], { env })
  assert.equal(res.code, 0, res.stderr)
  await waitFor(() => appPids(file).length === 1 && recorded(h.home).includes(appPids(file)[0]), { timeout: 15000, message: 'the first pid in state.json' })
  const daemon = h.daemonPid()
  let unrecorded = null
  for (let attempt = 0; attempt < 5 && !unrecorded; attempt++) {
    const before = appPids(file).length
    process.kill(appPids(file).at(-1), 'SIGKILL') // a crash (min_uptime 0: restarted at once), not a command: nothing flushes the state
    const pid = await waitFor(() => appPids(file).length > before && appPids(file).at(-1), { timeout: 10000, interval: 10, message: 'the restarted process' })
    process.kill(daemon, 'SIGSTOP')
    if (!recorded(h.home).includes(pid)) unrecorded = pid
    else process.kill(daemon, 'SIGCONT')
  }
  assert.ok(unrecorded, 'a restart\'s new pid was caught before its write')
  process.kill(daemon, 'SIGKILL')
  await waitFor(() => !running(daemon), { message: 'the daemon to die' })
  assert.ok(running(unrecorded), 'the unrecorded process outlived its daemon')

  const list = await h.run(['jlist']) // starts a daemon, which recovers
  assert.equal(list.code, 0, list.stderr)
  await waitFor(() => !running(unrecorded), { timeout: 10000, message: `the unrecorded process to be ended: ${describeProc(unrecorded)}` })
  await waitFor(async () => (await h.jlist()).some((p) => p.name === 'f' && p.status === 'online' && p.pid !== unrecorded), { timeout: 15000, message: 'f restored' })
})
