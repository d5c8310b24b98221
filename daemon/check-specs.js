'use strict'

const path = require('node:path')
const { XpmError } = require('../lib/errors')

// Specs arrive over the socket already normalized by lib/config in the CLI; the daemon still
// checks the shape it relies on, so a hand-written client cannot crash it.
function checkSpecs (specs) {
  if (!Array.isArray(specs) || specs.length === 0) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', 'Expected `specs` to be a non-empty array of app specs')
  }
  for (const spec of specs) checkSpec(spec)
  return specs
}

function checkSpec (spec) {
  const bad = (what) => { throw new XpmError('XPM_ERR_CONFIG_INVALID', `Invalid app spec: ${what}`) }
  if (!spec || typeof spec !== 'object') bad('expected an object')
  if (typeof spec.name !== 'string' || spec.name === '' || /^\d+$/.test(spec.name) || spec.name === 'all') bad(`name ${JSON.stringify(spec.name)}`)
  if (typeof spec.script !== 'string' || !path.isAbsolute(spec.script)) bad(`script ${JSON.stringify(spec.script)} must be an absolute path`)
  if (typeof spec.cwd !== 'string' || !path.isAbsolute(spec.cwd)) bad(`cwd ${JSON.stringify(spec.cwd)} must be an absolute path`)
  if (!Number.isInteger(spec.instances) || spec.instances < 1) bad(`instances ${JSON.stringify(spec.instances)}`)
  if (spec.execMode !== 'cluster' && spec.execMode !== 'fork') bad(`execMode ${JSON.stringify(spec.execMode)}`)
  if (typeof spec.interpreter !== 'string') bad('interpreter')
  if (spec.execMode === 'cluster' && spec.interpreter !== 'node') bad('cluster mode needs the node interpreter')
  if (!spec.env || typeof spec.env !== 'object') bad('env')
  if (!Array.isArray(spec.args || []) || !Array.isArray(spec.nodeArgs || [])) bad('args')
}

module.exports = { checkSpecs, checkSpec }
