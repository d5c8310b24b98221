'use strict'

const { XpmError } = require('../../lib/shared/errors')
const { writeFileAtomic } = require('../../lib/shared/state/atomic-write')
const { serializeState, summarizeApps } = require('../../lib/shared/state/state-format')
const { appsSnapshot } = require('./snapshot')
const { registerApps, startRegistered } = require('./restore')

// The socket methods of persistence (listed in daemon/methods.js): `xpm save`, `xpm resurrect`,
// `xpm update`'s first step, and the CLI's acknowledgement of the restore notice.
// ctx: what createPersistence shares with them (daemon/persistence/index.js).
function createPersistenceMethods ({ supervisor, paths, updateFile, daemon, handover, serial, load, warnDamaged, logger, validate, now, ackNotice }) {
  return {
    save: (params) => serial(async () => {
      const apps = appsSnapshot(supervisor)
      // a damaged dump.pm2 is set aside (and dump.pm2.bak put in its place) before the write,
      // so that it never becomes dump.pm2.bak itself
      const existing = warnDamaged(await load(paths.dumpFile, { fallback: true, promote: true }).catch(() => null))
      if (!apps.length && params.force !== true && existing?.state.apps.length) {
        throw new XpmError('XPM_ERR_SAVE_EMPTY',
        `No app is managed; saving would replace the ${existing.state.apps.length} app(s) in ${paths.dumpFile} with none. Use \`xpm save --force\` to do it anyway`,
        { details: { file: paths.dumpFile, saved: existing.state.apps.length } })
      }
      await writeFileAtomic(paths.dumpFile, serializeState({ apps, cleanShutdown: true, daemon, now }), { backup: true })
      return { file: paths.dumpFile, ...summarizeApps(apps), ...(existing?.damaged ? { damaged: existing.damaged } : {}) }
    }),

    // As PM2: a damaged dump.pm2 is set aside (dump.pm2.corrupt-<time>) and the apps of
    // dump.pm2.bak are started, and the reply says so in `damaged` (the CLI warns); a missing
    // dump.pm2 is read from dump.pm2.bak.
    resurrect: () => serial(async () => {
      const dump = warnDamaged(await load(paths.dumpFile, { fallback: true, whenMissing: true }))
      if (!dump) return { file: paths.dumpFile, missing: true, results: [] }
      const { registered, skipped } = registerApps(supervisor, dump.state, { logger, validate })
      const results = await startRegistered(supervisor, registered)
      return { file: dump.from, results: [...results, ...skipped], ...(dump.damaged ? { damaged: dump.damaged } : {}) }
    }),

    // `xpm update`, step 1: the old daemon writes what the new one restores at its start.
    prepareUpdate: () => serial(async () => {
      const apps = appsSnapshot(supervisor)
      await writeFileAtomic(updateFile, serializeState({ apps, cleanShutdown: true, daemon, now }))
      handover.prepared = true
      return { file: updateFile, ...summarizeApps(apps) }
    }),

    ackRestored: () => {
      ackNotice()
      return null
    }
  }
}

module.exports = { createPersistenceMethods }
