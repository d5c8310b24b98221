'use strict'

// `xpm save`: the daemon writes its app list to XPM_HOME/dump.json (atomically, keeping the
// previous save as dump.json.bak). An empty list never replaces a non-empty one without --force.
async function save (ctx) {
  const [opts] = ctx.args
  const client = await ctx.connect()
  const res = await client.request('save', { force: opts.force === true }, { timeout: 30000 })
  if (opts.json) return require('../run').printJson(res)
  process.stdout.write(`[xpm] saved ${res.apps} app(s), ${res.instances} process(es) to ${res.file}\n`)
}

module.exports = { save }
