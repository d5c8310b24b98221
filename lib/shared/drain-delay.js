'use strict'

const { parseDuration } = require('./units')

// --drain-delay / XPM_DRAIN_DELAY (daemon/shutdown.js): a duration with a unit ('5s', '500ms'),
// or a bare number of seconds, as --delay beside it on xpm-runtime's command line (and as
// Kubernetes writes its periods): `--drain-delay 5` is five seconds, not five milliseconds.
function parseDrainDelay (value, what) {
  const text = String(value).trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  return parseDuration(text, what)
}

module.exports = { parseDrainDelay }
