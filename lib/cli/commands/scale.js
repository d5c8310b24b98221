'use strict'

const { printJson } = require('../run')
const { renderList } = require('../render-list')
const { XpmError } = require('../../errors')

// `xpm scale <name> <n|+n|-n>`: the daemon adds or removes instances; the others keep running.
async function scale (ctx) {
  const [name, change, opts] = ctx.args
  if (!/^[+-]?\d+$/.test(change)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected the instance count to be n, +n or -n (e.g. 4, +2, -1), got "${change}"`)
  }
  const client = await ctx.connect()
  const result = await client.request('scale', { name, change }, { timeout: 120000 })
  if (opts.json) printJson(result)
  else {
    const what = result.from === result.to
      ? `${result.name} already has ${result.to} instance${result.to === 1 ? '' : 's'}`
      : `scaled ${result.name} from ${result.from} to ${result.to} instance${result.to === 1 ? '' : 's'}` +
        (result.added.length && !result.started ? ' (the new ones start with the app: `xpm start ' + result.name + '`)' : '')
    process.stdout.write(`[xpm] ${what}\n`)
    process.stdout.write(renderList(await client.request('list')))
  }
  if (result.failures.length) {
    throw new XpmError('XPM_ERR_START_FAILED', `${result.failures.length} new instance(s) did not come online: ${result.failures[0].message}`, { details: result.failures })
  }
}

module.exports = { scale }
