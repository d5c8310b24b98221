'use strict'

// Kept for the modules that still import it from here; the answers live in model/predicates.js.
const { isReady, isWantedUp } = require('./predicates')

function wantedDown (instance) {
  return !isWantedUp(instance)
}

module.exports = { isReady, wantedDown }
