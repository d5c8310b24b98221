'use strict'

module.exports = require('neostandard')({
  ignores: ['node_modules/**', 'bench/.pm2-install/**', 'coverage/**']
})
