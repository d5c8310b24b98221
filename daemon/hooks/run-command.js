'use strict'

const { spawn } = require('node:child_process')

// Runs one shell command for the daemon on an app's behalf (an on_event hook, an exec probe),
// bounded in time and in what is kept of its output, never blocking the daemon's loop.
//
// Identity: `uid`, `gid`, `cwd` and `env` are the app's (daemon/launchers/app-options.js
// commandOptions()): a command runs as the app's user, never as the daemon's. libuv drops the
// daemon's supplementary groups when it switches user, exactly as for the app's processes.
//
// Nothing is left behind: the command leads its own process group (detached: setsid()), and
// that group — the command and everything it started that did not leave the group — gets
// SIGKILL at the deadline (timeoutMs), when `signal` is aborted (the app was deleted, the daemon
// shuts down) and, for what the command put in the background, at the deadline even when the
// command itself exited long before. The result does not wait for those leftovers.
//
// Resolves (never rejects) once the command has exited:
//   { ok, code, signal, timedOut, aborted, error, stdout, stderr, ms }
// input: written to its stdin (then closed); a command that does not read it is fine.
const MAX_OUTPUT = 4096

function runCommand ({ command, cwd, env = {}, uid, gid, input = null, timeoutMs = 10000, signal = null, shell = '/bin/sh', maxOutput = MAX_OUTPUT, now = () => Date.now(), timers = { setTimeout, clearTimeout } }) {
  return new Promise((resolve) => {
    const started = now()
    const out = { stdout: '', stderr: '' }
    let timedOut = false
    let aborted = false
    let child
    let timer = null
    let settled = false
    let leaderGone = false
    let groupGone = false

    // Ends the group, once: at the deadline, on abort, or (leftovers) whichever comes first.
    const endGroup = () => {
      if (groupGone) return
      groupGone = true
      timers.clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      killGroup(child?.pid, { leaderGone })
    }
    const finish = (result) => {
      if (settled) return
      settled = true
      resolve({ stdout: out.stdout, stderr: out.stderr, timedOut, aborted, ms: now() - started, ...result })
    }
    const onAbort = () => {
      aborted = !leaderGone
      endGroup()
    }
    if (signal?.aborted) return finish({ ok: false, code: null, signal: null, aborted: true, error: 'cancelled before it started' })
    const ids = {}
    if (Number.isSafeInteger(uid)) ids.uid = uid
    if (Number.isSafeInteger(gid)) ids.gid = gid
    try {
      child = spawn(shell, ['-c', command], { cwd, env, ...ids, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    } catch (err) {
      return finish({ ok: false, code: null, signal: null, error: err.code || err.message })
    }
    const keep = (stream, key) => {
      stream.setEncoding('utf8')
      stream.on('data', (text) => {
        if (out[key].length < maxOutput) out[key] = (out[key] + text).slice(0, maxOutput)
      })
      stream.on('error', () => {})
    }
    keep(child.stdout, 'stdout')
    keep(child.stderr, 'stderr')
    child.stdin.on('error', () => {}) // EPIPE: the command did not read its input
    child.stdin.end(input ?? undefined)
    child.once('error', (err) => {
      groupGone = true // never started: no group to end
      timers.clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      finish({ ok: false, code: null, signal: null, error: err.code || err.message })
    })
    timer = timers.setTimeout(() => {
      timedOut = !leaderGone
      endGroup()
    }, timeoutMs)
    timer.unref?.()
    signal?.addEventListener('abort', onAbort, { once: true })
    child.once('exit', (code, sig) => {
      leaderGone = true
      // What the command left running in its group lives on until the deadline (or an abort),
      // then goes; an empty group needs nothing more.
      if (!groupAlive(child.pid)) {
        groupGone = true
        timers.clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      // A background child may hold the pipes open: what came so far is what is kept.
      setImmediate(() => {
        child.stdout.destroy()
        child.stderr.destroy()
        finish({ ok: code === 0 && !timedOut && !aborted, code, signal: sig, error: null })
      })
    })
  })
}

// Whether some process still belongs to the group `pgid` (signal 0 checks without sending).
function groupAlive (pgid) {
  if (!pgid) return false
  try {
    process.kill(-pgid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

// SIGKILL to the whole group. While the leader runs (or is a zombie not yet reaped), a failed
// group kill falls back to the leader itself; once it is gone, its pid is not ours to signal.
function killGroup (pid, { leaderGone = false } = {}) {
  if (!pid) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    if (!leaderGone) try { process.kill(pid, 'SIGKILL') } catch {}
  }
}

// At most `limit` tasks at once; the others wait in order. queueLimit: past it, run() resolves
// at once with `onFull()` instead of queueing (the caller says what was dropped). signal: a
// task still waiting when it is aborted leaves the queue, and run() rejects with its reason.
// onIdle: called whenever the last task has ended and none waits.
function createLimiter (limit, { queueLimit = Infinity, onIdle = null } = {}) {
  let running = 0
  const queue = []
  const next = () => {
    if (running >= limit || !queue.length) return
    running++
    const { fn, resolve, reject, drop } = queue.shift()
    drop()
    Promise.resolve().then(fn).then(resolve, reject).finally(() => {
      running--
      next()
      if (running === 0 && !queue.length) onIdle?.()
    })
  }
  return {
    run (fn, { onFull = null, signal = null } = {}) {
      if (queue.length >= queueLimit && onFull) return Promise.resolve(onFull())
      if (signal?.aborted) return Promise.reject(signal.reason)
      return new Promise((resolve, reject) => {
        const entry = { fn, resolve, reject, drop: () => signal?.removeEventListener('abort', onAbort) }
        const onAbort = () => {
          const at = queue.indexOf(entry)
          if (at !== -1) queue.splice(at, 1)
          reject(signal.reason)
          if (running === 0 && !queue.length) onIdle?.()
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        queue.push(entry)
        next()
      })
    },
    get running () { return running },
    get queued () { return queue.length },
    get idle () { return running === 0 && queue.length === 0 }
  }
}

module.exports = { runCommand, createLimiter, killGroup, groupAlive, MAX_OUTPUT }
