'use strict'

module.exports = require('neostandard')({
  // deploy-corpus holds real users' ecosystem files kept verbatim, in their own style.
  ignores: ['node_modules/**', 'bench/.pm2-install/**', 'coverage/**', 'test/fixtures/ecosystems/deploy-corpus/**']
})
