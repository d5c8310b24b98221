'use strict'

const { STATUS } = require('./process-state')

// Starts instances of one app at once and waits for each to be ready (App#launchAll calls it).
// A failure of one does not stop the others: the reply lists the failures with the last lines
// each process wrote on stderr. An instance that exits with code 0 before it was ready and is not
// restarted (autorestart off, or 0 in stop_exit_codes) has finished its job: `finished`, not a
// failure.
async function launchAll (app, instances, signal, onProgress = null, start = (i) => i.start(signal)) {
  const finished = []
  const skipped = [] // stopped or deleted by a later command meanwhile: not a failure of this one
  const outcomes = await Promise.allSettled(instances.map(async (inst) => {
    try {
      const how = await start(inst)
      // a warning of this launch (wait-ready.js: online at listen_timeout): the CLI says it
      onProgress?.({ type: 'online', app: app.name, id: inst.id, instance: inst.index, pid: inst.pid, ...(how?.warning ? { warning: how.warning } : {}) })
    } catch (err) {
      if (!signal.aborted && inst.status === STATUS.STOPPED && inst.lastExit?.code === 0 && !inst.lastExit.signal) {
        finished.push(inst.id)
        onProgress?.({ type: 'finished', app: app.name, id: inst.id, instance: inst.index, code: 0 })
        return
      }
      if (!signal.aborted && err.details?.intent) {
        skipped.push(inst.id)
        onProgress?.({ type: 'skipped', app: app.name, id: inst.id, instance: inst.index, reason: err.message })
        return
      }
      if (!signal.aborted) onProgress?.({ type: 'failed', app: app.name, id: inst.id, instance: inst.index, reason: err.message })
      throw err
    }
  }))
  signal.throwIfAborted()
  const failures = []
  for (const [n, o] of outcomes.entries()) {
    if (o.status !== 'rejected') continue
    const inst = instances[n]
    const code = o.reason.code === 'XPM_ERR_PORT_TAKEN' ? { code: o.reason.code } : {} // the CLI exits with it
    failures.push({ id: inst.id, instance: inst.index, message: o.reason.message, ...code, stderr: await app.context.lastErrorLines?.(inst) })
  }
  return { ids: instances.map((i) => i.id), failures, finished, ...(skipped.length ? { skipped } : {}) }
}

module.exports = { launchAll }
