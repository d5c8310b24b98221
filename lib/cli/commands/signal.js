'use strict'

const { XpmError } = require('../../shared/errors')

// `xpm sendSignal <signal> <targets...>` (several at once, like the other commands): the signal name is checked here, before any daemon is
// started, with the rule of the kill_signal option (the daemon checks it again). Exit 1 when no
// running process got it.
async function sendSignal (ctx, { signal, targets: given, options: opts }) {
  const targets = [].concat(given)
  const target = targets.join(' ')
  const { TYPES, INVALID } = require('../../shared/config/types')
  const name = TYPES.signal.parse(signal)
  if (name === INVALID) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected a signal name such as SIGUSR2 or SIGTERM, got "${signal}"`)
  const client = await ctx.connect()
  const { expandTargets, wire } = require('../targets')
  const result = await client.request('sendSignal', { signal: name, target: wire(await expandTargets(client, targets)) })
  if (opts.json) ctx.io.printJson(result)
  else {
    for (const s of result.sent) ctx.io.say(`[xpm] sent ${result.signal} to ${s.name}[${s.instance}] (id ${s.id}, pid ${s.pid})\n`)
    for (const s of result.skipped) ctx.io.stderr.write(`xpm: ${s.name}[${s.instance}] (id ${s.id}) is ${s.status}: no signal sent\n`)
  }
  if (!result.sent.length) {
    if (!opts.json) ctx.io.stderr.write(`xpm: no running process of "${target}" got ${result.signal}\n`)
    return 1
  }
}

module.exports = { sendSignal }
