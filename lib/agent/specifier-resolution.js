'use strict'

// `--experimental-modules` (Node 8–11's ES modules) and `--experimental-specifier-resolution=node`
// (Node 12–18) in an app's node_args: Node resolved `import './test'` as require does, to
// ./test.mjs, ./test.js, ./test/index.js…; Node 19+ accepts both flags and ignores them, and the
// import fails. PM2 shows such an app online (its wrapper swallows the failed import); xpm
// resolves the import as those Node versions did, so the app runs (docs/ecosystem.md).
const FLAGS = new Set(['--experimental-modules', '--experimental-specifier-resolution=node', '--es-module-specifier-resolution=node'])

function wantsNodeResolution (execArgv) {
  return execArgv.some((a) => FLAGS.has(a))
}

// Registers the resolve hook (specifier-resolution-hooks.mjs); false where Node has no
// module.register (before 20.6).
function registerNodeResolution () {
  const mod = require('node:module')
  if (typeof mod.register !== 'function') return false
  mod.register('./specifier-resolution-hooks.mjs', require('node:url').pathToFileURL(__filename))
  return true
}

module.exports = { wantsNodeResolution, registerNodeResolution, FLAGS }
