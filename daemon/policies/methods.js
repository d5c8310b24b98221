'use strict'

const { XpmError } = require('../../lib/errors')
const { sendSignal } = require('./signal')

// Socket methods of the policies: scale, sendSignal, reset. Merged into daemon/methods.js.
function createPolicyMethods ({ supervisor, target }) {
  return {
    scale: (params) => {
      if (typeof params.name !== 'string') throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `name` to be an app name')
      if (typeof params.change !== 'string' && typeof params.change !== 'number') {
        throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `change` to be n, +n or -n')
      }
      return supervisor.scale(params.name, String(params.change))
    },
    sendSignal: (params) => sendSignal(supervisor, target(params), params.signal),
    // forget restart counts and crash history, so max_restarts and the backoff start afresh
    reset: (params) => supervisor.reset(target(params))
  }
}

module.exports = { createPolicyMethods }
