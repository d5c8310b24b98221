'use strict'

// Shared with `xpm logs --timestamp` (the CLI): lib/logs/date-format.js.
module.exports = require('../../lib/logs/date-format')
