'use strict'

const { XpmError } = require('../../lib/errors')
const { sendSignal } = require('./signal')
const { resetCounters } = require('./reset')

// Socket methods of the policies: scale, sendSignal, reset. Merged into daemon/methods.js.
function createPolicyMethods ({ supervisor }) {
  const target = (params) => {
    if (typeof params.target !== 'string' && typeof params.target !== 'number') {
      throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `target` to be an app name, a process id or "all"')
    }
    return String(params.target)
  }
  return {
    scale: (params) => {
      if (typeof params.name !== 'string') throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `name` to be an app name')
      if (typeof params.change !== 'string' && typeof params.change !== 'number') {
        throw new XpmError('XPM_ERR_BAD_ARGUMENT', 'Expected `change` to be n, +n or -n')
      }
      return supervisor.scale(params.name, String(params.change))
    },
    sendSignal: (params) => sendSignal(supervisor, target(params), params.signal),
    reset: (params) => resetCounters(supervisor, target(params))
  }
}

module.exports = { createPolicyMethods }
