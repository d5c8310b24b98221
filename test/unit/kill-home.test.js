'use strict'

// `xpm kill` without an answering daemon (lib/cli/kill-home.js) and the lock's pids
// (lib/shared/daemon-lock.js), against a fake /proc and injected signals: no process is started.
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { killHome, findDaemonPid } = require('../../lib/cli/kill-home')
const { lockPids } = require('../../lib/shared/daemon-lock')
const { fakeProc, env } = require('../helpers/fake-proc')
const { tempDir } = require('../helpers/tmp')

function tempHome (t, state) {
  const home = tempDir('xpm-kill-home-')
  t.after(() => fs.rmSync(home, { recursive: true, force: true }))
  const paths = { home, stateFile: path.join(home, 'state.json'), pidFile: path.join(home, 'daemon.pid') }
  if (state) fs.writeFileSync(paths.stateFile, JSON.stringify(state))
  return paths
}

test('no daemon: the tagged processes are ended with their app\'s signal, treekill: false keeps what its app started, state.json is marked clean, survivors are reported', async (t) => {
  const paths = tempHome(t, {
    version: 1,
    cleanShutdown: false,
    apps: [{ spec: { name: 'web', killSignal: 'SIGINT', killTimeout: 20 } }, { spec: { name: 'keep', treekill: false } }],
    processes: [{ pid: 403, startTime: '12', name: 'keep' }]
  })
  const home = paths.home
  const proc = fakeProc(t, {
    401: { startTime: '10', environ: env(home, 'web', 0, '1-a') }, // ends on SIGINT
    402: { startTime: '11', environ: env(home, 'web', 0, '1-a') }, // survives everything
    403: { startTime: '12', environ: env(home, 'keep', 0, '1-b') }, // treekill: false, its recorded process: ended
    404: { startTime: '13', environ: env(home, 'keep', 0, '1-b') } // treekill: false, what it started: kept
  })
  const sent = []
  const kill = (pid, sig) => {
    sent.push([pid, sig])
    if ((pid === 401 && sig === 'SIGINT') || (pid === 403 && sig === 'SIGTERM')) proc.remove(pid)
  }
  const res = await killHome(paths, { findDaemon: async () => null, scanner: proc.scanner, kill, pollMs: 5, killWaitMs: 20 })
  assert.equal(res.daemon, null)
  assert.deepEqual(res.ended.sort(), [401, 403])
  assert.deepEqual(res.survived, [402])
  assert.ok(!sent.some(([pid]) => pid === 404), 'treekill: false keeps what the app started')
  assert.ok(sent.some(([pid, sig]) => pid === 401 && sig === 'SIGINT'), 'the app\'s kill_signal')
  assert.ok(sent.some(([pid, sig]) => pid === 401 && sig === 'SIGCONT'), 'SIGCONT first: a stopped process acts on nothing else')
  assert.equal(JSON.parse(fs.readFileSync(paths.stateFile, 'utf8')).cleanShutdown, true)
})

test('a daemon that does not answer: SIGCONT, SIGTERM, SIGKILL at the deadline; one that survives even that is reported', async (t) => {
  const paths = tempHome(t)
  const proc = fakeProc(t, {})
  const daemons = new Map([[500, '1'], [600, '2']])
  const readStat = async (pid) => (daemons.has(pid) ? { startTime: daemons.get(pid) } : null)
  for (const [pid, dies, expect] of [
    [500, 'SIGKILL', { signals: ['SIGCONT', 'SIGTERM', 'SIGKILL'], alive: false, signal: 'SIGKILL' }],
    [600, null, { signals: ['SIGCONT', 'SIGTERM', 'SIGKILL'], alive: true, signal: 'SIGKILL' }]
  ]) {
    const sent = []
    const kill = (target, sig) => {
      sent.push(sig)
      if (sig === dies) daemons.delete(target)
    }
    const res = await killHome(paths, { findDaemon: async () => pid, readStat, kill, daemonWait: 20, pollMs: 5, scanner: proc.scanner })
    assert.deepEqual(sent.slice(0, 3), expect.signals)
    assert.equal(res.daemonAlive, expect.alive)
    assert.deepEqual(res.daemon, { pid, signal: expect.signal })
  }
})

test('the daemon is found by the pid its lock socket is named after, else by daemon.pid only when that is an xpm daemon of this home', async (t) => {
  const paths = tempHome(t)
  fs.mkdirSync(path.join(paths.home, 'daemon.lock'))
  fs.writeFileSync(path.join(paths.home, 'daemon.lock', `${(4242).toString(36)}-abcd1234`), '')
  assert.deepEqual(await lockPids(paths.home), [4242])
  // no live socket behind the lock, and daemon.pid names this test process (not a daemon)
  fs.writeFileSync(paths.pidFile, String(process.pid))
  assert.equal(await findDaemonPid(paths, { probeTimeout: 200 }), null)
  fs.writeFileSync(paths.pidFile, '999999999')
  assert.equal(await findDaemonPid(paths, { probeTimeout: 200 }), null)
})
