'use strict'

const { printJson } = require('../run')
const { renderList } = require('../render-list')

// `xpm reset <name|id|all>`: restart counters and crash history start again from zero.
async function reset (ctx) {
  const [target, opts] = ctx.args
  const client = await ctx.connect()
  const result = await client.request('reset', { target })
  if (opts.json) return printJson(result)
  process.stdout.write(`[xpm] reset the restart counters of ${target} (${result.ids.length} process${result.ids.length === 1 ? '' : 'es'})\n`)
  process.stdout.write(renderList(await client.request('list')))
}

module.exports = { reset }
