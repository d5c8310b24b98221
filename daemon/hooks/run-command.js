'use strict'

const { spawn } = require('node:child_process')

// Runs one shell command for the daemon (an on_event hook, an exec probe), bounded in time and
// in what is kept of its output, never blocking the daemon's loop: the command leads its own
// process group, and at the deadline the whole group gets SIGKILL. Resolves (never rejects)
// once the command has exited:
//   { ok, code, signal, timedOut, error, stdout, stderr, ms }
// input: written to its stdin (then closed); a command that does not read it is fine.
const MAX_OUTPUT = 4096

function runCommand ({ command, cwd, env = {}, input = null, timeoutMs = 10000, shell = '/bin/sh', maxOutput = MAX_OUTPUT, now = () => Date.now() }) {
  return new Promise((resolve) => {
    const started = now()
    const out = { stdout: '', stderr: '' }
    let timedOut = false
    let child
    let timer = null
    let settled = false
    const finish = (result) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ stdout: out.stdout, stderr: out.stderr, timedOut, ms: now() - started, ...result })
    }
    try {
      child = spawn(shell, ['-c', command], { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
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
    child.once('error', (err) => finish({ ok: false, code: null, signal: null, error: err.code || err.message }))
    timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid)
    }, timeoutMs)
    timer.unref()
    child.once('exit', (code, signal) => {
      // A background child may hold the pipes open: what came so far is what is kept.
      setImmediate(() => {
        child.stdout.destroy()
        child.stderr.destroy()
        finish({ ok: code === 0 && !timedOut, code, signal, error: null })
      })
    })
  })
}

function killGroup (pid) {
  if (!pid) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
}

// At most `limit` tasks at once; the others wait in order. queueLimit: past it, run() resolves
// at once with `onFull()` instead of queueing (the caller says what was dropped).
function createLimiter (limit, { queueLimit = Infinity } = {}) {
  let running = 0
  const queue = []
  const next = () => {
    if (running >= limit || !queue.length) return
    running++
    const { fn, resolve } = queue.shift()
    Promise.resolve().then(fn).then(resolve, (err) => resolve(Promise.reject(err))).finally(() => {
      running--
      next()
    })
  }
  return {
    run (fn, { onFull = null } = {}) {
      if (queue.length >= queueLimit && onFull) return Promise.resolve(onFull())
      return new Promise((resolve) => {
        queue.push({ fn, resolve })
        next()
      })
    },
    get running () { return running },
    get queued () { return queue.length }
  }
}

module.exports = { runCommand, createLimiter, killGroup, MAX_OUTPUT }
