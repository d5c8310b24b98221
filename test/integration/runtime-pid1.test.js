'use strict'

// xpm-runtime as PID 1 (a container without `--init`), run as a command as a container's CMD
// runs it: in a PID namespace of its own (unshare, as root). Its shell entry is the init on every
// Node version (on Node 20 it used to leave zombies), and a SIGTERM in its first moments is not
// dropped by the kernel (it used to be ignored for ~130 ms, and the runtime ran on).
const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createHome, waitFor, fixture, ROOT } = require('../helpers/xpm')
const { childrenOf } = require('../helpers/procs')

const RUNTIME = path.join(ROOT, 'bin', 'xpm-runtime')

const skip = require('../helpers/pid-namespace').pidNamespace().skip ?? false

// bin/xpm-runtime executed directly (its shebang), with this test's Node (XPM_NODE).
function runtimeAsPid1 (t, h, args, cwd) {
  const u = spawn('unshare', ['--pid', '--fork', '--mount-proc', RUNTIME, ...args], { cwd, env: { ...h.env, XPM_NODE: process.execPath }, stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '' }
  u.stdout.on('data', (d) => { out.stdout += d })
  u.stderr.on('data', (d) => { out.stderr += d })
  const exited = new Promise((resolve) => u.once('exit', (code, signal) => resolve({ code, signal })))
  const init = () => childrenOf(u.pid)[0] || 0 // PID 1 of the namespace, in our numbering
  t.after(() => {
    const pid = init()
    if (pid) try { process.kill(pid, 'SIGKILL') } catch {} // ends the whole namespace
    try { u.kill('SIGKILL') } catch {}
  })
  return { u, out, exited, init }
}

const cmdline = (pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ') } catch { return '' } }
const comm = (pid) => { try { return fs.readFileSync(`/proc/${pid}/comm`, 'latin1').trim() } catch { return '' } }
// Whether `pid` has a handler for SIGTERM (signal 15: bit 14 of SigCgt).
const catchesTerm = (pid) => {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'latin1').split('\n').find((l) => l.startsWith('SigCgt:'))
    return (BigInt('0x' + line.split(/\s+/)[1]) & (1n << 14n)) !== 0n
  } catch { return false }
}

test(`run as a command, xpm-runtime as PID 1 is the init itself on Node ${process.versions.node}: orphans are reaped, the exit status passes on`, { skip }, async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.copyFileSync(fixture('leaves-orphan.js'), path.join(dir, 'leaves-orphan.js'))
  const rt = runtimeAsPid1(t, h, ['leaves-orphan.js', '--kill-timeout', '1000'], dir)
  await waitFor(() => /leaves-orphan\[0\]\| up/.test(rt.out.stdout), { timeout: 20000, message: `the app to start; ${JSON.stringify(rt.out)}` })
  const init = rt.init()
  assert.match(cmdline(init), /^\/bin\/sh \S*bin\/xpm-runtime leaves-orphan\.js/, 'PID 1 is the shell of bin/xpm-runtime')
  assert.doesNotMatch(rt.out.stderr, /pid1-without-init/)
  const orphan = await waitFor(() => childrenOf(init).find((pid) => comm(pid) === 'sleep'), { message: 'the orphan to be handed to PID 1' })
  process.kill(orphan, 'SIGKILL')
  await waitFor(() => !fs.existsSync(`/proc/${orphan}`), { message: `the orphan ${orphan} to be reaped by PID 1 (not left a zombie)` })
  process.kill(init, 'SIGTERM')
  assert.equal((await rt.exited).code, 0, rt.out.stderr)
})

test('xpm-runtime as PID 1 stops on a SIGTERM that comes in its first moments', { skip }, async (t) => {
  const h = createHome(t)
  const dir = path.join(h.home, 'app')
  fs.mkdirSync(dir)
  fs.copyFileSync(fixture('leaves-orphan.js'), path.join(dir, 'leaves-orphan.js'))
  const rt = runtimeAsPid1(t, h, ['leaves-orphan.js'], dir)
  // As soon as PID 1 exists and has exec'd: the moment it has a SIGTERM handler (a PID 1 without
  // one drops the signal), checked every millisecond; 5 s at most, so a runtime that never
  // installs one fails here rather than hangs (20 ms was too short on a loaded machine: the
  // signal then came before Node had started and was dropped).
  const init = await waitFor(() => { const pid = rt.init(); return pid && comm(pid) !== 'unshare' && pid }, { interval: 1, message: 'PID 1' })
  const seen = Date.now()
  await waitFor(() => catchesTerm(init) || Date.now() - seen > 5000, { interval: 1 })
  const sent = { handler: catchesTerm(init), afterMs: Date.now() - seen, children: childrenOf(init).map((pid) => `${pid} ${cmdline(pid)}`) }
  process.kill(init, 'SIGTERM')
  const exit = await Promise.race([rt.exited, new Promise((resolve) => setTimeout(resolve, 20000, null).unref())])
  assert.notEqual(exit, null, `the runtime ran on after an early SIGTERM (${JSON.stringify(sent)}): ${JSON.stringify(rt.out)}`)
  assert.ok([0, 143].includes(exit.code), JSON.stringify({ exit, ...rt.out }))
})
