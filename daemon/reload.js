'use strict'

const { XpmError } = require('../lib/errors')
const { STATUS } = require('./process-state')
const { stopProcess } = require('./stop-process')
const { waitUntilReady } = require('./wait-ready')

// Zero-downtime reload, run inside the daemon as one job per app so a CLI that goes away
// changes nothing. For each instance in turn: fork the replacement, wait until it is ready,
// only then drain and stop the old worker. The app therefore never has fewer listening workers
// than before, even with one instance. A replacement that exits or is not ready in time is
// stopped, the old worker keeps serving, and the job ends as failed. Instances replaced earlier
// in the same job keep their new workers: they passed the same readiness check, and rolling them
// back would mean a second round of replacements under load (see docs/reload.md).
function createReloader ({ supervisor, logger }) {
  const queues = new Map() // app name → tail of its job chain: reloads of one app never interleave

  async function reload (target, { specs = null, onStep = () => {}, reason = 'reload' } = {}) {
    const instances = supervisor.resolve(target)
    const byApp = new Map()
    for (const inst of instances) {
      if (!byApp.has(inst.app)) byApp.set(inst.app, [])
      byApp.get(inst.app).push(inst)
    }
    const results = []
    for (const [app, selected] of byApp) {
      const spec = specs?.find((s) => s.name === app.name) ?? null
      results.push(await enqueue(app.name, () => reloadApp(app, selected, spec, onStep, reason)))
    }
    const failed = results.filter((r) => r.failed)
    if (failed.length) {
      const f = failed[0].failed
      throw new XpmError('XPM_ERR_RELOAD_FAILED',
        `Reload of ${failed.map((r) => r.name).join(', ')} stopped: ${f.label} ${f.reason}; the old worker keeps serving`,
        { details: results })
    }
    return results
  }

  function enqueue (name, job) {
    const previous = queues.get(name) ?? Promise.resolve()
    const run = previous.catch(() => {}).then(job)
    const tail = run.catch(() => {})
    queues.set(name, tail)
    tail.then(() => { if (queues.get(name) === tail) queues.delete(name) })
    return run
  }

  async function reloadApp (app, selected, newSpec, onStep, reason) {
    const step = (data) => {
      const event = { app: app.name, ...data }
      logger?.info({ event: 'reload', ...event }, `reload ${app.name}: ${data.type}`)
      onStep(event)
    }
    if (newSpec) supervisor.applySpec(app, newSpec)
    const result = { name: app.name, replaced: [], restarted: [], failed: null }
    step({ type: 'begin', instances: selected.map((i) => i.id), mode: app.spec.execMode })

    for (const inst of selected) {
      if (!app.instances.includes(inst)) continue // deleted or scaled away meanwhile
      if (app.spec.execMode !== 'cluster' || inst.status !== STATUS.ONLINE) {
        const why = app.spec.execMode !== 'cluster' ? 'fork mode: reload falls back to restart' : `was ${inst.status}: restarted`
        step({ type: 'restart', id: inst.id, instance: inst.index, reason: why })
        try {
          await inst.restart(reason)
          result.restarted.push(inst.id)
          step({ type: 'restarted', id: inst.id, instance: inst.index, pid: inst.pid })
        } catch (err) {
          result.failed = { id: inst.id, label: `${app.name}[${inst.index}]`, reason: err.message }
          step({ type: 'failed', id: inst.id, instance: inst.index, reason: err.message })
          break
        }
        continue
      }
      const outcome = await replaceWorker(app, inst, step, reason)
      if (outcome.failed) {
        result.failed = outcome.failed
        break
      }
      result.replaced.push({ id: inst.id, oldPid: outcome.oldPid, newPid: outcome.newPid })
    }
    // A new spec may ask for more instances than before: start them now.
    const fresh = app.instances.filter((i) => i.status === STATUS.STOPPED && !selected.includes(i))
    if (!result.failed && fresh.length) await supervisor.startInstances(fresh)
    step({ type: 'end', ok: !result.failed, replaced: result.replaced.length, restarted: result.restarted.length })
    return result
  }

  async function replaceWorker (app, inst, step, reason) {
    const spec = app.spec
    const old = inst.handle
    const oldPid = old.pid
    const label = `${app.name}[${inst.index}]`
    const replacement = supervisor.launchProcess(spec, inst.env())
    supervisor.attachProcess(inst, replacement)
    step({ type: 'fork', id: inst.id, instance: inst.index, oldPid, newPid: replacement.pid })
    try {
      const how = await waitUntilReady(replacement, {
        waitReady: spec.waitReady,
        expectListen: app.listens,
        listenTimeout: spec.listenTimeout,
        settleMs: Math.min(spec.minUptime ?? 1000, 1000),
        label: `replacement ${label} (pid ${replacement.pid})`
      })
      if (how.by === 'listening') app.listens = true
    } catch (err) {
      step({ type: 'failed', id: inst.id, instance: inst.index, newPid: replacement.pid, reason: err.message })
      await stopProcess(replacement, { ...spec, killTimeout: Math.min(spec.killTimeout, 2000) })
      supervisor.detachProcess(inst, replacement)
      if (inst.handle === old && !old.exited) supervisor.metrics?.track(inst.id, oldPid)
      return { failed: { id: inst.id, label, reason: err.message.replace(/^replacement \S+ \(pid \d+\) /, '') } }
    }
    step({ type: 'ready', id: inst.id, instance: inst.index, newPid: replacement.pid })

    const previous = inst.handle // the old worker, or whatever crash-restart put in the slot meanwhile
    inst.swapHandle(replacement, reason)
    if (previous && !previous.exited) {
      previous.send({ cmd: 'NODE_XPM_DRAIN' }) // see lib/worker/drain.js
      await stopProcess(previous, spec)
    }
    step({ type: 'stopped', id: inst.id, instance: inst.index, oldPid: previous?.pid ?? oldPid })
    return { oldPid, newPid: replacement.pid }
  }

  return { reload }
}

module.exports = { createReloader }
