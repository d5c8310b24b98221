'use strict'

// `xpm save` (`dump`): the daemon writes its app list to XPM_HOME/dump.pm2 (atomically,
// keeping the previous save as dump.pm2.bak). An empty list never replaces a non-empty one
// without --force.
async function save (ctx, { options: opts }) {
  const client = await ctx.connect()
  const res = await client.request('save', { force: opts.force === true }, { timeout: 30000 })
  if (opts.json) return ctx.io.printJson(res)
  ctx.io.say(`[xpm] saved ${res.apps} app(s), ${res.instances} process(es) to ${res.file}\n`)
}

// `xpm cleardump`: an empty save, so `xpm resurrect` and a boot bring back nothing (the save
// before stays in dump.pm2.bak). Written by the CLI; no daemon needed.
async function cleardump (ctx, { options: opts = {} }) {
  const { ensureSafeHome } = require('../../shared/safe-fs')
  const { writeFileAtomic } = require('../../shared/state/atomic-write')
  const { serializeState } = require('../../shared/state/state-format')
  const paths = ctx.io.paths()
  ensureSafeHome(paths.home)
  await writeFileAtomic(paths.dumpFile, serializeState({ apps: [], cleanShutdown: true }), { backup: true })
  if (opts.json) return ctx.io.printJson({ file: paths.dumpFile, apps: 0 })
  ctx.io.say(`[xpm] emptied ${paths.dumpFile} (the previous save is in ${paths.dumpFile}.bak)\n`)
}

module.exports = { save, cleardump }
