'use strict'

// The address forms live in lib/ (the CLI checks XPM_METRICS before it starts a daemon, and
// `xpm startup` before it writes it into a unit); the daemon reads them from there.
module.exports = require('../../lib/shared/metrics-address')
