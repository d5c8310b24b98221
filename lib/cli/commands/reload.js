'use strict'

// `xpm reload` lives with restart in lifecycle.js (targets, ecosystem files, changed options).
const { reload, describeStep } = require('./lifecycle')

module.exports = { reload, describeStep }
