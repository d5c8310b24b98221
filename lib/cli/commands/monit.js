'use strict'

const { XpmError } = require('../../shared/errors')

async function monit (ctx) {
  if (!ctx.io.stdout.isTTY) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '`xpm monit` needs a terminal; use `xpm jlist` for machine-readable output')
  const client = await ctx.connect()
  const { runMonit } = require('../monit')
  return runMonit({ client, stdout: ctx.io.stdout, stdin: ctx.io.stdin, signals: ctx.io.signals })
}

module.exports = { monit }
