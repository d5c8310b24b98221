'use strict'

const net = require('node:net')
const { describeProbe } = require('../../lib/shared/config/health-types')
const { askAgent } = require('./agent-probe')
const { runCommand, createLimiter } = require('../hooks/run-command')
const { commandOptions } = require('../launchers/app-options')
const { instanceEnv } = require('../../lib/shared/config/instance-env')
const { withoutInternals } = require('../../lib/shared/internal-env')

// One run of a probe against one process. Never throws; resolves { ok, detail, ms } where
// detail says what failed in words ('GET /healthz → 503', 'tcp :3000: connection refused',
// 'exec "node check.js": exit code 1: db down').
//
// Where each kind runs (docs/health.md, "Reaching the right worker"):
//  - http: inside the process, by its agent (lib/agent/probe.js), whatever the mode: the request
//    goes into the process's own http.Server, so in cluster mode it reaches that worker and no
//    other. A process without the agent (another interpreter, XPM_AGENT=0) is asked over the
//    network, on 127.0.0.1 and the probe's port.
//  - https: the same, into the process's own https.Server (its TLS is not exercised: the request
//    enters after the handshake, as a 'secureConnection'). Without the agent, a real TLS request
//    to 127.0.0.1 and the probe's port, which does not check the certificate (loopback only: the
//    probe is about the app's health, not about its certificate).
//  - tcp: a cluster worker's port is the primary's (the daemon accepts every connection), so a
//    connect proves nothing about the worker: its agent says whether one of its own servers
//    listens on that port. Otherwise a real connect to 127.0.0.1:port.
//  - exec: the command, run by the daemon as the app runs — the app's uid and gid, cwd and
//    environment (with its instance's variables) — plus XPM_PROBE, XPM_PROBE_PID and XPM_ID so
//    it can check the process it is about. It is its own process group, ended with everything
//    it started at its timeout, when the process it is about exits (a stop, a delete, a
//    shutdown) and when the caller's signal is aborted.
// Bounded: at most IPC_CONCURRENCY agent or network probes at once over every app, and, per
// app, execSlots(spec) commands at once, so one app's slow commands never hold another app's
// probes. A probe's timeout counts from when it was asked for: time spent waiting for a slot is
// part of it (a probe that never got a slot fails with "no slot within …").
const IPC_CONCURRENCY = 32
const EXEC_MIN_SLOTS = 2
const EXEC_MAX_SLOTS = 8

// Commands of one app at once: one per instance, at least EXEC_MIN_SLOTS, at most EXEC_MAX_SLOTS.
function execSlots (spec) {
  return Math.min(EXEC_MAX_SLOTS, Math.max(EXEC_MIN_SLOTS, Number(spec.instances) || 1))
}

function createProber ({
  ask = askAgent,
  run = runCommand,
  connect = tcpConnect,
  get = httpGet,
  limiter = createLimiter(IPC_CONCURRENCY),
  now = () => Date.now(),
  timers = { setTimeout, clearTimeout }
} = {}) {
  const execLimiters = new Map() // app name → its limiter, while it has commands running or waiting

  function execLimiterOf (spec) {
    let entry = execLimiters.get(spec.name)
    const slots = execSlots(spec)
    if (!entry || (entry.slots !== slots && entry.limiter.idle)) {
      const fresh = { slots }
      fresh.limiter = createLimiter(slots, { onIdle: () => { if (execLimiters.get(spec.name) === fresh) execLimiters.delete(spec.name) } })
      entry = fresh
      execLimiters.set(spec.name, entry)
    }
    return entry.limiter
  }

  // signal: the caller's (a probe loop that ended). The probe also ends when its process exits.
  async function probe (p, target, { role = 'readiness', signal = null } = {}) {
    const started = now()
    const what = describeProbe(p)
    const { ended, release } = endedWith(target.handle, signal)
    // Waiting for a slot counts against the timeout.
    const waiting = new AbortController()
    const deadline = timers.setTimeout(() => waiting.abort(new Error(`no slot within ${p.timeout} ms`)), p.timeout)
    deadline.unref?.()
    const stopWaiting = () => waiting.abort(ended.reason)
    ended.addEventListener('abort', stopWaiting, { once: true })
    const left = () => Math.max(1, p.timeout - (now() - started))
    let result
    try {
      if (p.kind === 'exec') {
        const execLimiter = execLimiterOf(target.spec)
        result = await execLimiter.run(() => {
          timers.clearTimeout(deadline)
          return execProbe(p, target, role, ended, left())
        }, { signal: waiting.signal })
      } else {
        result = await limiter.run(() => {
          timers.clearTimeout(deadline)
          const q = { ...p, timeout: left() }
          return p.kind === 'tcp' ? tcpProbe(q, target) : httpProbe(q, target)
        }, { signal: waiting.signal })
      }
    } catch (err) {
      if (ended.aborted) result = { ok: false, detail: `ended: ${ended.reason?.message ?? 'cancelled'}` }
      else result = { ok: false, detail: `${err.message} (${p.kind === 'exec' ? `${execSlots(target.spec)} commands of this app already run` : 'too many probes at once'})` }
    } finally {
      timers.clearTimeout(deadline)
      ended.removeEventListener('abort', stopWaiting)
      release()
    }
    const detail = result.ok ? result.detail : `${what}${result.detail.startsWith('→') ? ' ' : ': '}${result.detail}`
    return { ok: result.ok, detail, ms: now() - started }
  }

  async function httpProbe (p, { handle }) {
    if (handle.reportsBoot) {
      const r = await ask(handle, { kind: p.kind, path: p.path, port: p.port, timeout: p.timeout })
      return { ok: r.ok, detail: r.status ? `→ ${r.status}` : r.detail }
    }
    if (!p.port) return { ok: false, detail: 'a process without the agent needs the probe\'s port' }
    const r = await get({ port: p.port, path: p.path, timeout: p.timeout, tls: p.kind === 'https' })
    return { ok: r.ok, detail: r.status ? `→ ${r.status}` : r.detail }
  }

  async function tcpProbe (p, { handle }) {
    if (handle.announcesListening && handle.reportsBoot) {
      return ask(handle, { kind: 'tcp', port: p.port, timeout: p.timeout })
    }
    return connect({ port: p.port, timeout: p.timeout })
  }

  async function execProbe (p, { handle, spec, id, index, name }, role, signal, timeoutMs = p.timeout) {
    const r = await run({
      command: p.command,
      ...commandOptions(spec),
      env: { ...withoutInternals(spec.env), ...instanceEnv(spec, index), XPM_ID: String(id), XPM_APP_NAME: name, XPM_PROBE: role, XPM_PROBE_PID: String(handle.pid ?? '') },
      timeoutMs,
      signal
    })
    if (r.ok) return { ok: true, detail: 'exit code 0' }
    const firstLine = (r.stderr || r.stdout).split('\n').map((l) => l.trim()).find(Boolean)
    const why = r.timedOut ? `no result within ${p.timeout} ms` : r.aborted ? 'ended: its process exited or its probing stopped' : r.error ? `could not run (${r.error})` : r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`
    return { ok: false, detail: firstLine ? `${why}: ${firstLine.slice(0, 120)}` : why }
  }

  return { probe, limiter, execLimiters }
}

// A signal aborted when the process exits or `signal` is aborted; release() forgets both.
function endedWith (handle, signal) {
  const controller = new AbortController()
  const onExit = () => controller.abort(new Error('the process exited'))
  const onAbort = () => controller.abort(signal.reason ?? new Error('probing stopped'))
  if (handle?.exited) onExit()
  else handle?.once?.('exit', onExit)
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  return {
    ended: controller.signal,
    release () {
      handle?.off?.('exit', onExit)
      signal?.removeEventListener('abort', onAbort)
    }
  }
}

function tcpConnect ({ port, host = '127.0.0.1', timeout }) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host })
    const done = (ok, detail) => {
      socket.destroy()
      resolve({ ok, detail })
    }
    socket.setTimeout(timeout, () => done(false, `no connection within ${timeout} ms`))
    socket.once('connect', () => done(true, 'connected'))
    socket.once('error', (err) => done(false, err.code === 'ECONNREFUSED' ? 'connection refused' : err.code || err.message))
  })
}

// tls: an HTTPS GET that does not check the server's certificate (a loopback health check).
function httpGet ({ port, path, host = '127.0.0.1', timeout, tls = false }) {
  return new Promise((resolve) => {
    let settled = false
    const done = (result) => {
      if (settled) return
      settled = true
      req.destroy()
      resolve(result)
    }
    // Required here, not at the top: a daemon whose apps have no HTTP probe never loads them
    // (https and its tls cost 2.3 MB of RSS; a built-in's require reads no file).
    const client = tls ? require('node:https') : require('node:http')
    const req = client.get({ host, port, path, agent: false, ...(tls ? { rejectUnauthorized: false, servername: 'localhost' } : {}), headers: { 'user-agent': 'xpm-probe', connection: 'close' } }, (res) => {
      res.resume()
      const status = res.statusCode
      done({ ok: status >= 200 && status < 400, status, detail: String(status) })
    })
    req.setTimeout(timeout, () => done({ ok: false, status: 0, detail: `no answer within ${timeout} ms` }))
    req.once('error', (err) => done({ ok: false, status: 0, detail: err.code === 'ECONNREFUSED' ? 'connection refused' : tls && err.code === 'EPROTO' ? 'not an HTTPS server (TLS handshake failed)' : err.code || err.message }))
  })
}

module.exports = { createProber, tcpConnect, httpGet, execSlots, IPC_CONCURRENCY, EXEC_MIN_SLOTS, EXEC_MAX_SLOTS }
