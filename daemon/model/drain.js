'use strict'

// The message that asks a worker to finish its requests and exit (lib/agent/drain.js): sent to
// a process a reload retires, and to a spare that is rolled back.
const DRAIN = { cmd: 'NODE_XPM_DRAIN' }

module.exports = { DRAIN }
