'use strict'

const { STATUS } = require('./process-state')
const { isWantedUp } = require('./predicates')

// Zero-downtime reload of some instances of one app, run as one operation of that app (see
// model/app.js), so a CLI that goes away changes nothing and nothing else interleaves with it.
// For each instance in turn: a launcher whose processes can overlap (cluster) gets a spare that
// takes the slot only once it is ready, then the old process drains and stops; other launchers
// (fork mode) restart the instance. A failure stops the job: a cluster spare's old process keeps
// serving; a fork-mode instance whose restart failed is down (waiting restart or errored).
// Instances replaced earlier in the same job keep their new processes: they passed the same
// readiness check, and rolling them back would mean a second round of replacements under load
// (see docs/reload.md). Instances the user stopped are never touched. A stop or delete of the
// app cancels the job at once (`signal`); the canceller stops whatever the job had forked.
// change: what a new spec did to the instances when the reload was accepted (app-scale.js):
// the ones it removed are retired (waited for here), the ones it added started at the end.
async function reloadInstances (app, selected, { change = null, reason = 'reload', onStep = () => {}, signal }) {
  const step = (data) => onStep({ app: app.name, ...data })
  const fresh = change?.added ?? []
  if (change) {
    await change.retired // stopped and unlisted, as a scale-down's
    signal.throwIfAborted()
  }
  const overlap = app.launcher.replacesInPlace
  const result = { name: app.name, replaced: [], restarted: [], skipped: [], failed: null }
  step({ type: 'begin', instances: selected.map((i) => i.id), mode: app.spec.execMode })

  for (const inst of selected) {
    signal.throwIfAborted()
    if (!app.instances.includes(inst) || inst.removing) continue // deleted or scaled away meanwhile
    if (!isWantedUp(inst)) {
      result.skipped.push(inst.id)
      step({ type: 'skip', id: inst.id, instance: inst.index, reason: 'stopped: left alone' })
      continue
    }
    try {
      if (overlap && inst.status === STATUS.ONLINE) {
        const { oldPid, newPid } = await inst.replace({ reason, signal, step })
        result.replaced.push({ id: inst.id, oldPid, newPid })
        continue
      }
      step({ type: 'restart', id: inst.id, instance: inst.index, reason: overlap ? `was ${inst.status}: restarted` : 'fork mode: reload falls back to restart' })
      await inst.restart(reason, signal)
      result.restarted.push(inst.id)
      step({ type: 'restarted', id: inst.id, instance: inst.index, pid: inst.pid })
    } catch (err) {
      if (signal.aborted) throw signal.reason
      if (err.details?.intent) { // stopped or deleted by the user meanwhile: left as they asked
        result.skipped.push(inst.id)
        step({ type: 'skip', id: inst.id, instance: inst.index, reason: err.message })
        continue
      }
      result.failed = await failure(app, inst, err, { replaced: overlap && inst.status === STATUS.ONLINE })
      const f = result.failed
      step({ type: 'failed', id: inst.id, instance: inst.index, reason: `${f.replacement ? 'replacement ' : ''}${f.pid ? `pid ${f.pid} ` : ''}${f.reason}` })
      break
    }
  }
  // A new spec may ask for more instances than before: start those (and only those) now, even
  // after a failure: they are part of the intent (wanted up since the spec was applied), and a
  // crash of theirs goes through the restart policy as the failed instance's does.
  const launch = fresh.filter((i) => isWantedUp(i) && app.instances.includes(i))
  if (launch.length) await app.launchAll(launch, signal)
  step({ type: 'end', ok: !result.failed, serving: result.failed ? result.failed.serving : true, replaced: result.replaced.length, restarted: result.restarted.length, skipped: result.skipped.length })
  return result
}

// What the failure of one instance's replacement says: which process (the label once, its pid),
// what happened to it, whether the old process keeps serving (a cluster spare that failed: yes;
// a fork-mode restart: the instance is down, waiting restart or errored), and the last lines the
// failed process wrote on stderr, as a failed start shows them.
async function failure (app, inst, err, { replaced }) {
  const m = /^(replacement )?\S+\[\d+\] \(pid (\d+)\) (.*)$/s.exec(err.message)
  const pid = m ? Number(m[2]) : null
  const stderr = pid && app.context.lastErrorLines ? await app.context.lastErrorLines(inst, { pid }).catch(() => []) : []
  return {
    id: inst.id,
    label: inst.label,
    pid,
    replacement: Boolean(m?.[1]),
    reason: m ? m[3] : err.message,
    serving: replaced && inst.status === STATUS.ONLINE,
    status: inst.status,
    stderr
  }
}

module.exports = { reloadInstances }
