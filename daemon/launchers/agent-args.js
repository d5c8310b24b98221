'use strict'

const path = require('node:path')

const AGENT = path.join(__dirname, '..', '..', 'lib', 'worker', 'agent.js')

function nodeExecArgv (spec) {
  const argv = [...(spec.nodeArgs || [])]
  if (spec.metrics !== false) argv.push('--require', AGENT)
  return argv
}

module.exports = { nodeExecArgv, AGENT }
