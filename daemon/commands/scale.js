'use strict'

const { XpmError } = require('../../lib/shared/errors')

// The socket side of scale (the plan itself is the model's: daemon/model/scale.js).
// `xpm scale <app> <n|+n|-n>`: `target` as every other method (`name`: the older form, still taken).
function scale (supervisor, params) {
  const name = params.target ?? params.name
  if (typeof name !== 'string' || !name) throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `target` to be an app name')
  if (typeof params.change !== 'string' && typeof params.change !== 'number') {
    throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `change` to be n, +n or -n')
  }
  return supervisor.scale(name, String(params.change))
}

module.exports = { scale }
