'use strict'

const net = require('node:net')
const http = require('node:http')
const { describeProbe } = require('../../lib/config/health-types')
const { askAgent } = require('./agent-probe')
const { runCommand, createLimiter } = require('../hooks/run-command')

// One run of a probe against one process. Never throws; resolves { ok, detail, ms } where
// detail says what failed in words ('GET /healthz → 503', 'tcp :3000: connection refused',
// 'exec "node check.js": exit code 1: db down').
//
// Where each kind runs (docs/health.md, "Reaching the right worker"):
//  - http: inside the process, by its agent (lib/worker/probe.js), whatever the mode: the request
//    goes into the process's own http.Server, so in cluster mode it reaches that worker and no
//    other. A process without the agent (another interpreter, XPM_AGENT=0) is asked over the
//    network, on 127.0.0.1 and the probe's port.
//  - tcp: a cluster worker's port is the primary's (the daemon accepts every connection), so a
//    connect proves nothing about the worker: its agent says whether one of its own servers
//    listens on that port. Otherwise a real connect to 127.0.0.1:port.
//  - exec: the command, run by the daemon in the app's cwd and environment, plus XPM_PROBE,
//    XPM_PROBE_PID and XPM_ID so it can check the process it is about.
// Bounded: at most IPC_CONCURRENCY agent or network probes and EXEC_CONCURRENCY commands at once
// over every app; each probe has its own timeout, counted from when it starts.
const IPC_CONCURRENCY = 32
const EXEC_CONCURRENCY = 4

function createProber ({
  ask = askAgent,
  run = runCommand,
  connect = tcpConnect,
  get = httpGet,
  limiter = createLimiter(IPC_CONCURRENCY),
  execLimiter = createLimiter(EXEC_CONCURRENCY),
  now = () => Date.now()
} = {}) {
  async function probe (p, target, { role = 'readiness' } = {}) {
    const started = now()
    const what = describeProbe(p)
    let result
    try {
      result = p.kind === 'exec'
        ? await execLimiter.run(() => execProbe(p, target, role))
        : await limiter.run(() => (p.kind === 'http' ? httpProbe(p, target) : tcpProbe(p, target)))
    } catch (err) {
      result = { ok: false, detail: err.message }
    }
    const detail = result.ok ? result.detail : `${what}${result.detail.startsWith('→') ? ' ' : ': '}${result.detail}`
    return { ok: result.ok, detail, ms: now() - started }
  }

  async function httpProbe (p, { handle }) {
    if (handle.reportsBoot) {
      const r = await ask(handle, { kind: 'http', path: p.path, port: p.port, timeout: p.timeout })
      return { ok: r.ok, detail: r.status ? `→ ${r.status}` : r.detail }
    }
    if (!p.port) return { ok: false, detail: 'a process without the agent needs the probe\'s port' }
    const r = await get({ port: p.port, path: p.path, timeout: p.timeout })
    return { ok: r.ok, detail: r.status ? `→ ${r.status}` : r.detail }
  }

  async function tcpProbe (p, { handle }) {
    if (handle.announcesListening && handle.reportsBoot) {
      return ask(handle, { kind: 'tcp', port: p.port, timeout: p.timeout })
    }
    return connect({ port: p.port, timeout: p.timeout })
  }

  async function execProbe (p, { handle, spec, id, index, name }, role) {
    const r = await run({
      command: p.command,
      cwd: spec.cwd,
      env: { ...spec.env, XPM_PROBE: role, XPM_PROBE_PID: String(handle.pid ?? ''), XPM_ID: String(id), XPM_APP_NAME: name, NODE_APP_INSTANCE: String(index) },
      timeoutMs: p.timeout
    })
    if (r.ok) return { ok: true, detail: 'exit code 0' }
    const firstLine = (r.stderr || r.stdout).split('\n').map((l) => l.trim()).find(Boolean)
    const why = r.timedOut ? `no result within ${p.timeout} ms` : r.error ? `could not run (${r.error})` : r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`
    return { ok: false, detail: firstLine ? `${why}: ${firstLine.slice(0, 120)}` : why }
  }

  return { probe, limiter, execLimiter }
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

function httpGet ({ port, path, host = '127.0.0.1', timeout }) {
  return new Promise((resolve) => {
    let settled = false
    const done = (result) => {
      if (settled) return
      settled = true
      req.destroy()
      resolve(result)
    }
    const req = http.get({ host, port, path, agent: false, headers: { 'user-agent': 'xpm-probe', connection: 'close' } }, (res) => {
      res.resume()
      const status = res.statusCode
      done({ ok: status >= 200 && status < 400, status, detail: String(status) })
    })
    req.setTimeout(timeout, () => done({ ok: false, status: 0, detail: `no answer within ${timeout} ms` }))
    req.once('error', (err) => done({ ok: false, status: 0, detail: err.code === 'ECONNREFUSED' ? 'connection refused' : err.code || err.message }))
  })
}

module.exports = { createProber, tcpConnect, httpGet, IPC_CONCURRENCY, EXEC_CONCURRENCY }
