'use strict'

const { renderWhy } = require('../render-why')

// `xpm why <app|id>`: the restart journal, newest first, in words (docs/health.md#the-restart-journal-xpm-why).
async function why (ctx, { target, options: opts }) {
  const client = await ctx.connect()
  const { entries } = await client.request('why', { target, limit: opts.limit ?? 20 })
  if (opts.json) return ctx.io.printJson(entries)
  ctx.io.stdout.write(renderWhy(entries, { target, ...ctx.io.tableOptions() }))
}

module.exports = { why }
