'use strict'

// `xpm reset <targets...>`: restart counters and crash history start again from zero.
async function reset (ctx, { targets, options: opts }) {
  const client = await ctx.connect()
  const { expandTargets, wire } = require('../targets')
  const result = await client.request('reset', { target: wire(await expandTargets(client, targets)) })
  if (opts.json) return ctx.io.printJson(result)
  ctx.io.say(`[xpm] reset the restart counters of ${targets.join(', ')} (${result.ids.length} process${result.ids.length === 1 ? '' : 'es'})\n`)
  await ctx.io.showList(client)
}

module.exports = { reset }
