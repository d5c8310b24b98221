'use strict'

// Shared with `xpm logs --timestamp` (the CLI): lib/shared/logs/date-format.js.
module.exports = require('../../lib/shared/logs/date-format')
