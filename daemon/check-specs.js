'use strict'

const { XpmError } = require('../lib/errors')
const { validateSpec } = require('../lib/config/validate-spec')

// Specs arrive over the socket already normalized by lib/config in the CLI; the daemon still
// checks the shape it relies on, so a hand-written client cannot crash it.
function checkSpecs (specs) {
  if (!Array.isArray(specs) || specs.length === 0) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', 'Expected `specs` to be a non-empty array of app specs')
  }
  return specs.map((spec) => validateSpec(spec))
}

module.exports = { checkSpecs }
