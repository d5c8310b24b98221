'use strict'

// The reload benchmark drives the same closed-loop client as the reload tests, with 20 loops.
const { startLoad: start } = require('../../test/helpers/load')

function startLoad (port, opts = {}) {
  return start(port, { concurrency: 20, ...opts })
}

module.exports = { startLoad }
