'use strict'

const { XpmError } = require('../../shared/errors')

// `xpm scale <app> <n|+n|-n>`: the daemon adds or removes instances; the others keep running.
// The app: its name, one of its process ids, its script, or a pattern naming one app.
async function scale (ctx, { app: target, count: change, options: opts }) {
  if (!/^[+-]?\d+$/.test(change)) {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected the instance count to be n, +n or -n (e.g. 4, +2, -1), got "${change}"`)
  }
  const client = await ctx.connect()
  const { expandTargets } = require('../targets')
  const expanded = await expandTargets(client, [target])
  if (expanded.length !== 1) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `scale changes one app; ${target} names ${expanded.length} (${expanded.join(', ')})`)
  const result = await client.request('scale', { target: expanded[0], change }, { timeout: 120000 })
  if (opts.json) ctx.io.printJson(result)
  else {
    const what = result.from === result.to
      ? `${result.name} already has ${result.to} instance${result.to === 1 ? '' : 's'}`
      : `scaled ${result.name} from ${result.from} to ${result.to} instance${result.to === 1 ? '' : 's'}` +
        (result.added.length && !result.started ? ' (the new ones start with the app: `xpm start ' + result.name + '`)' : '')
    ctx.io.say(`[xpm] ${what}\n`)
    await ctx.io.showList(client)
  }
  if (result.failures.length) {
    throw new XpmError('XPM_ERR_START_FAILED', `${result.failures.length} new instance(s) did not come online: ${result.failures[0].message}`, { details: result.failures })
  }
}

module.exports = { scale }
