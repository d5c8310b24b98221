'use strict'

const os = require('node:os')
const { STATUS } = require('../model/process-state')
const { classify } = require('../journal/causes')
const { runCommand, createLimiter } = require('./run-command')
const { commandOptions } = require('../launchers/app-options')
const { withoutInternals } = require('../../lib/shared/internal-env')

// on_event hooks (docs/health.md#hooks-on_event): commands the daemon runs when a process of the app
//   crash          exits on its own (or is stopped for not being ready in time) and is not done
//   errored        turns errored (the crash-loop accounting, or a policy, gave up on it)
//   restart        is restarted by a policy: watch, memory, cron, liveness, watchdog, heap
//   reload_failed  a reload's replacement was rolled back
// Each command runs as the app runs: its uid and gid, its cwd and environment (never as the
// daemon's user), through /bin/sh, with the event as JSON on its stdin and in XPM_EVENT_*
// variables. Bounded: at most CONCURRENCY hooks run at once over all apps, at most QUEUE wait
// (the others are dropped, and the daemon log says so); each runs as its own process group,
// which is killed, with whatever the hook left in the background, after the app's on_event
// timeout (10 s by default), when the app is deleted and when the daemon shuts down. A hook never
// delays the daemon or the app; its failure (exit code, timeout, could not run) is logged with
// the start of what it printed.
const CONCURRENCY = 4
const QUEUE = 64
const POLICY_KINDS = new Set(['watch', 'memory', 'cron', 'liveness', 'watchdog', 'heap'])

class Hooks {
  constructor ({ supervisor, logger = null, run = runCommand, limiter = createLimiter(CONCURRENCY, { queueLimit: QUEUE }), clock = Date.now, hostname = os.hostname() }) {
    this.supervisor = supervisor
    this.logger = logger
    this.run = run
    this.limiter = limiter
    this.clock = clock
    this.hostname = hostname
    this.closed = false
    this.checking = false
    this.running = new Set()
    this.cancels = new Map() // App → AbortController of its hooks (aborted when it is deleted)
    this.unsubscribe = supervisor.subscribe({
      exit: (e) => this.onExit(e),
      status: (change) => this.onStatus(change),
      restart: (r) => this.onRestart(r),
      'replace-failed': (f) => this.onReplaceFailed(f),
      change: () => this.onChange()
    })
  }

  appOf (name) {
    return this.supervisor.apps.get(name) ?? null
  }

  fire (name, event, data) {
    if (this.closed) return
    const app = this.appOf(name)
    const hooks = app?.spec.onEvent
    if (!hooks) return
    const commands = hooks.commands.filter((c) => c.events.includes(event))
    if (!commands.length) return
    const payload = { event, app: name, ...data, time: new Date(this.clock()).toISOString(), host: this.hostname }
    const env = hookEnv(withoutInternals(app.spec.env), name, event, data, payload.time)
    const input = JSON.stringify(payload) + '\n'
    const signal = this.cancelOf(app).signal
    for (const { command } of commands) {
      const job = this.limiter.run(() => this.run({ command, ...commandOptions(app.spec), env, input, timeoutMs: hooks.timeout, signal }), {
        onFull: () => ({ dropped: true }),
        signal
      }).then((r) => report(this.logger, name, event, command, r), (err) => report(this.logger, name, event, command, signal.aborted ? { ok: false, aborted: true } : { ok: false, error: err.message }))
      this.running.add(job)
      job.finally(() => this.running.delete(job))
    }
  }

  cancelOf (app) {
    let controller = this.cancels.get(app)
    if (!controller) {
      controller = new AbortController()
      this.cancels.set(app, controller)
    }
    return controller
  }

  // A deleted app's hooks (running, and those still queued) end with it.
  onChange () {
    if (this.checking || !this.cancels.size) return
    this.checking = true
    setImmediate(() => {
      this.checking = false
      for (const [app, controller] of this.cancels) {
        if (this.supervisor.apps.get(app.name) === app) continue
        this.cancels.delete(app)
        controller.abort(new Error(`${app.name} was deleted`))
      }
    })
  }

  onExit (e) {
    if (e.role !== 'current' || e.next === null || e.next === 'stopped') return
    if (e.stopCause && e.stopCause !== 'not ready in time') return
    const inst = this.appOf(e.name)?.instances.find((i) => i.id === e.id)
    this.fire(e.name, 'crash', {
      id: e.id,
      instance: e.instance,
      pid: e.pid,
      code: e.code,
      signal: e.signal,
      cause: e.notReady ? 'not ready in time' : e.signal ? `crash (signal ${e.signal})` : `crash (exit code ${e.code})`,
      reason: e.reason ?? null,
      next: e.next,
      delay: e.delay ?? null,
      ranMs: e.ranMs,
      restarts: inst?.restarts ?? null
    })
  }

  onStatus (change) {
    if (change.to !== STATUS.ERRORED) return
    this.fire(change.name, 'errored', { id: change.id, instance: this.instanceIndex(change), pid: change.pid || null, code: change.exit?.code ?? null, signal: change.exit?.signal ?? null, cause: 'errored', reason: change.reason ?? null })
  }

  onRestart (r) {
    const cause = classify(r.reason)
    if (!POLICY_KINDS.has(cause.kind)) return
    const inst = this.appOf(r.name)?.instances.find((i) => i.id === r.id)
    this.fire(r.name, 'restart', { id: r.id, instance: r.instance, pid: inst?.pid || null, cause: cause.kind, reason: r.reason, restarts: inst?.restarts ?? null })
  }

  onReplaceFailed (f) {
    this.fire(f.name, 'reload_failed', { id: f.id, instance: f.instance, pid: f.pid, oldPid: f.oldPid, cause: f.cause, reason: f.reason })
  }

  instanceIndex (change) {
    return this.appOf(change.name)?.instances.find((i) => i.id === change.id)?.index ?? null
  }

  // Resolves once the hooks started so far have ended (tests, shutdown).
  idle () {
    return Promise.all([...this.running])
  }

  close () {
    this.closed = true
    this.unsubscribe()
    // Shutdown (xpm kill): hooks still running or queued end now, with their process groups.
    for (const controller of this.cancels.values()) controller.abort(new Error('the daemon is stopping'))
    this.cancels.clear()
  }
}

// The event in the hook's environment, beside the app's own variables.
function hookEnv (appEnv, name, event, data, time) {
  return {
    ...appEnv,
    XPM_EVENT: event,
    XPM_EVENT_APP: name,
    XPM_EVENT_ID: String(data.id ?? ''),
    XPM_EVENT_INSTANCE: String(data.instance ?? ''),
    XPM_EVENT_PID: String(data.pid ?? ''),
    XPM_EVENT_CODE: data.code === null || data.code === undefined ? '' : String(data.code),
    XPM_EVENT_SIGNAL: data.signal ?? '',
    XPM_EVENT_CAUSE: data.cause ?? '',
    XPM_EVENT_REASON: data.reason ?? '',
    XPM_EVENT_TIME: time
  }
}

function report (logger, name, event, command, r) {
  const shown = command.length > 80 ? command.slice(0, 77) + '...' : command
  if (r.dropped) {
    logger?.warn({ event: 'hook', app: name, hook: event, command }, `${name}: on_event ${event} hook "${shown}" dropped: ${QUEUE} hooks already waiting`)
    return
  }
  if (r.ok) {
    logger?.info({ event: 'hook', app: name, hook: event, command, ms: r.ms }, `${name}: on_event ${event} hook "${shown}" ran (${r.ms} ms)`)
    return
  }
  const why = r.timedOut ? 'timed out and was killed' : r.aborted ? 'was ended (its app was deleted, or the daemon is stopping)' : r.error ? `could not run (${r.error})` : r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`
  const output = (r.stderr || r.stdout || '').trim().split('\n').slice(0, 3).join(' | ').slice(0, 300)
  logger?.warn({ event: 'hook', app: name, hook: event, command, code: r.code ?? null, signal: r.signal ?? null, timedOut: Boolean(r.timedOut), output }, `${name}: on_event ${event} hook "${shown}" ${why}${output ? `: ${output}` : ''}`)
}

function createHooks (options) {
  return new Hooks(options)
}

module.exports = { createHooks, Hooks, CONCURRENCY, QUEUE }
