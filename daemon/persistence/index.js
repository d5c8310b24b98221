'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { isAlive } = require('../../lib/shared/pid')
const { readSavedState } = require('../../lib/shared/state/read-saved')
const { countInstances } = require('../../lib/shared/state/state-format')
const { checkHandover } = require('./handover')
const { registerApps, startRegistered } = require('./restore')
const { createPersistenceMethods } = require('./methods')
const { reapOrphans } = require('./reap-orphans')
const { StateKeeper } = require('./state-keeper')
const { SPEC_DEFAULTS } = require('../../lib/shared/config/spec-defaults')

// Everything the daemon keeps on disk about its apps:
//   state.json   the desired state, saved after every change (crash recovery);
//   dump.pm2    what `xpm save` wrote (+ dump.pm2.bak, the save before), for `xpm resurrect`
//                and for `--resurrect` at boot;
//   update.json  the hand-over from an old daemon to a new one during `xpm update`.
// At start-up: stop the processes a crashed daemon left behind, then restore, in this order:
// update.json if present, else state.json if the previous daemon did not shut down cleanly,
// else dump.pm2 when started with --resurrect. A clean `xpm kill` restores nothing.
// Damaged files never lose apps silently (lib/shared/state/read-saved.js): a damaged state.json or
// dump.pm2 is set aside and its .bak copy used, and the log, the CLI and the notice say so; a
// stale update.json (handover.js) is ignored and removed.
// (createPersistence is over 80 lines because prepare, run, the hello and the shutdown steps share
// the restore plan, the notice and the state keeper; each is short and named.)
function createPersistence ({ paths, supervisor, logger = null, version = null, resurrect = false, keepState = true, now = Date.now, alive = isAlive, validate = undefined }) {
  const updateFile = path.join(paths.home, 'update.json')
  const daemon = { pid: process.pid, version }
  const keeper = keepState ? new StateKeeper({ file: paths.stateFile, supervisor, daemon, logger, now }) : null
  let previous = null
  let plan = null // { source, file, registered, skipped }
  let notice = null
  const handover = { prepared: false, byUpdate: false } // update.json written by this daemon; the update's own kill
  let busy = Promise.resolve()
  // one save or restore at a time: two `xpm save` must not share dump.pm2.tmp
  const serial = (fn) => {
    const run = busy.then(fn)
    busy = run.catch(() => {})
    return run
  }

  const load = (file, options = {}) => readSavedState(file, { now, ...options })
  const warnDamaged = (read) => {
    if (read?.damaged) logger?.warn({ event: 'restore', file: read.damaged.file, setAside: read.damaged.setAside, used: read.from, mayBeMissing: read.damaged.mayBeMissing }, read.damaged.message)
    return read
  }

  // Before the socket listens: decide what to restore and register it (fast, no process started),
  // so the first client already sees the apps and the notice.
  async function prepare () {
    if (!keepState) return
    await adoptLegacyDump(paths.dumpFile, logger)
    const chosen = await chooseSource({ paths, updateFile, load, warnDamaged, resurrect, alive, now, logger })
    previous = chosen.previous
    const source = chosen.source
    if (!source) return
    const { registered, skipped } = registerApps(supervisor, source.state, { logger, validate })
    plan = { ...source, registered, skipped }
    notice = restoreNotice(source, registered, previous, now())
    const why = { crash: `the previous daemon (pid ${notice.previousPid ?? '?'}) did not shut down cleanly`, update: 'xpm update', resurrect: '--resurrect' }[source.reason]
    logger?.warn({ event: 'restore', reason: source.reason, file: source.from, apps: registered.map((a) => a.name) }, `restoring ${registered.length} app(s) from ${source.from} (${why})`)
  }

  // After the socket listens: start keeping state.json (the intent registered so far, and the
  // previous daemon's processes until they are ended, so a second crash loses neither), end what
  // the previous daemon left running, then bring the restored apps to their intent. recovered()
  // is called once the starts are handed to the apps (daemon/phase.js: commands wait until then);
  // the returned promise settles when those starts have.
  async function run ({ recovered = () => {} } = {}) {
    if (!keepState) return recovered()
    const orphans = previous?.processes ?? []
    keeper.inherit(orphans)
    await keeper.start()
    if (orphans.length || paths.home) await reapPrevious(previous, orphans, { paths, logger }) // with paths.home: also every process with this home's tree tag
    keeper.inherit([])
    if (!plan || supervisor.closing) return recovered()
    if (plan.reason === 'update') await fs.promises.rm(updateFile, { force: true }).catch(() => {})
    const starting = startRegistered(supervisor, plan.registered)
    recovered()
    const results = await starting
    const failed = results.filter((r) => r.failures.length)
    logger?.info({ event: 'restored', reason: plan.reason, results }, `restored ${results.length} app(s)${failed.length ? `; ${failed.length} did not reach online` : ''}`)
  }

  const methods = createPersistenceMethods({
    supervisor,
    paths,
    updateFile,
    daemon,
    handover,
    serial,
    load,
    warnDamaged,
    logger,
    validate,
    now,
    ackNotice: () => { notice = null }
  })

  return {
    prepare,
    run,
    methods,
    hello: () => (notice ? { restored: notice } : {}),
    flush: () => keeper?.flush(),
    // `kill` with handover: true is `xpm update`'s own; any other shutdown makes the
    // update.json this daemon prepared stale (handover.js), and it is removed.
    noteKill: (params) => { handover.byUpdate = params?.handover === true },
    beforeShutdown: async () => {
      if (handover.prepared && !handover.byUpdate) {
        logger?.warn({ event: 'handover', file: updateFile }, `removing ${updateFile}: this shutdown is not the hand-over of \`xpm update\``)
        await fs.promises.rm(updateFile, { force: true }).catch(() => {})
      }
      return keeper?.freeze()
    },
    afterShutdown: () => keeper?.close()
  }
}

// xpm saved its list as dump.json before it took PM2's name, dump.pm2: a save of an earlier
// version is renamed once (with its .bak), so `xpm resurrect` and boots still find it.
async function adoptLegacyDump (dumpFile, logger) {
  const legacy = path.join(path.dirname(dumpFile), 'dump.json')
  const exists = (file) => fs.promises.lstat(file).then(() => true, () => false)
  if (await exists(dumpFile) || !await exists(legacy)) return
  try {
    await fs.promises.rename(legacy, dumpFile)
    await fs.promises.rename(legacy + '.bak', dumpFile + '.bak').catch(() => {})
    logger?.info({ event: 'restore', file: dumpFile, from: legacy }, `renamed ${legacy} to ${dumpFile} (PM2's name for the saved list)`)
  } catch (err) {
    logger?.warn({ event: 'restore', err }, `could not rename ${legacy} to ${dumpFile}: ${err.message}`)
  }
}

// What a start-up restores, in this order: a fresh update.json (a stale one is removed), else
// state.json when the previous daemon did not shut down cleanly, else dump.json with --resurrect.
// → { source: { reason, state, from, damaged? } | null, previous: the last state.json or null }
async function chooseSource ({ paths, updateFile, load, warnDamaged, resurrect, alive, now, logger }) {
  let previous = null
  let stateRead = null
  try {
    stateRead = warnDamaged(await load(paths.stateFile, { fallback: true }))
    previous = stateRead?.state ?? null
  } catch (err) {
    logger?.error({ event: 'restore', err }, `ignoring an unreadable ${paths.stateFile}: ${err.message}`)
  }
  let source = null
  try {
    const update = await load(updateFile)
    if (update) {
      const verdict = checkHandover({ update: update.state, previous, now: now(), isAlive: alive })
      if (verdict.fresh) source = { reason: 'update', ...update }
      else {
        logger?.warn({ event: 'restore', file: updateFile, savedAt: update.state.savedAt, writer: update.state.daemon?.pid ?? null }, `ignoring and removing a stale ${updateFile}: ${verdict.why}`)
        await fs.promises.rm(updateFile, { force: true })
      }
    }
  } catch (err) {
    logger?.error({ event: 'restore', err }, `ignoring an unreadable ${updateFile}: ${err.message}`)
  }
  if (!source && previous && !previous.cleanShutdown) source = { reason: 'crash', ...stateRead }
  if (!source && resurrect) {
    try {
      const dump = warnDamaged(await load(paths.dumpFile, { fallback: true, promote: true, whenMissing: true }))
      if (dump) source = { reason: 'resurrect', ...dump }
    } catch (err) {
      logger?.error({ event: 'restore', err }, `cannot resurrect: ${err.message}`)
    }
  }
  return { source, previous }
}

// What the CLI is told once after a restore (hello's `restored`, until ackRestored).
function restoreNotice (source, registered, previous, at) {
  return {
    reason: source.reason,
    apps: registered.length,
    instances: countInstances(source.state, 'online'),
    previousPid: previous?.daemon?.pid ?? null,
    at,
    ...(source.damaged ? { warning: source.damaged.message } : {})
  }
}

// The processes the previous daemon left (its state.json's, and any with this home's tree tag)
// are ended before anything is restored, with their apps' kill signal and timeout.
async function reapPrevious (previous, orphans, { paths, logger }) {
  const specs = new Map((previous?.apps || []).map((a) => [a.spec.name, a.spec]))
  const reaped = await reapOrphans(orphans, {
    home: paths.home,
    specOf: (name) => specs.get(name),
    stopOptions: (rec) => ({ killSignal: specs.get(rec.name)?.killSignal || 'SIGTERM', killTimeout: specs.get(rec.name)?.killTimeout ?? SPEC_DEFAULTS.killTimeout }),
    logger
  }).catch((err) => {
    logger?.error({ event: 'orphan', err }, `looking for processes of the previous daemon failed: ${err.message}`)
    return []
  })
  if (reaped.length) logger?.warn({ event: 'orphan', stopped: reaped.map((r) => ({ pid: r.pid, app: r.name, outcome: r.outcome })) }, `stopped ${reaped.length} process(es) left by the previous daemon`)
}

module.exports = { createPersistence }
