'use strict'

// Moved to lib/proc-stat.js (the CLI's `xpm kill` reads /proc too); kept for existing callers.
module.exports = require('../../lib/proc-stat')
