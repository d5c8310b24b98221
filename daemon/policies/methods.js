'use strict'

const { XpmError } = require('../../lib/errors')
const { sendSignal } = require('./signal')

// Socket methods of the policies: scale, sendSignal, reset. Merged into daemon/methods.js.
function createPolicyMethods ({ supervisor, target }) {
  return {
    // `target` as every other method (`name`: the older form, still taken)
    scale: (params) => {
      const name = params.target ?? params.name
      if (typeof name !== 'string' || !name) throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `target` to be an app name')
      if (typeof params.change !== 'string' && typeof params.change !== 'number') {
        throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `change` to be n, +n or -n')
      }
      return supervisor.scale(name, String(params.change))
    },
    sendSignal: (params) => sendSignal(supervisor, target(params), params.signal),
    // forget restart counts and crash history, so max_restarts and the backoff start afresh
    reset: (params) => supervisor.reset(target(params))
  }
}

module.exports = { createPolicyMethods }
