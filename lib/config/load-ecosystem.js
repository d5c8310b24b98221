'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { XpmError } = require('../errors')
const { show } = require('../units')
const { isPlainObject } = require('./types')
const { didYouMean } = require('./suggest')
const { MAX_APPS } = require('./limits')

// Names PM2 treats as configuration: ecosystem*.{js,cjs,mjs,json}, *.config.{js,cjs,mjs}, any
// .json, and YAML (recognised only to say it is not supported). A plain `server.js` is a script.
const ECOSYSTEM_NAME = /(^ecosystem[^/\\]*\.(c|m)?js(on)?$)|(\.config\.(c|m)?js$)|(\.json$)|(\.ya?ml$)/i

function isEcosystemFile (arg) {
  return typeof arg === 'string' && ECOSYSTEM_NAME.test(path.basename(arg))
}

function loadError (file, what, cause) {
  return new XpmError('XPM_ERR_CONFIG_LOAD', `ecosystem file ${file} ${what}`, { cause, details: { file } })
}

// Evaluates the file in this (the CLI's) process and returns its apps, still raw.
async function loadEcosystem (file) {
  file = path.resolve(file)
  let stat
  try { stat = fs.statSync(file) } catch (err) { throw loadError(file, 'does not exist', err) }
  if (!stat.isFile()) throw loadError(file, 'is not a file')
  const ext = path.extname(file).toLowerCase()
  let exported
  if (ext === '.json') exported = readJson(file)
  else if (ext === '.yml' || ext === '.yaml') throw loadError(file, 'is YAML, which xpm does not read; use .js, .cjs, .mjs or .json')
  else if (ext === '.mjs' || (ext === '.js' && packageType(file) === 'module')) exported = await importFresh(file)
  else exported = await requireFresh(file)
  return { file, dir: path.dirname(file), apps: appsOf(exported, file) }
}

// JSON is parsed, never evaluated (PM2 evaluates .json files as JavaScript).
function readJson (file) {
  let text
  try { text = fs.readFileSync(file, 'utf8') } catch (err) { throw loadError(file, `could not be read: ${err.code}`, err) }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw loadError(file, `is not valid JSON (it is parsed, never run): ${err.message}`, err)
  }
}

async function requireFresh (file) {
  delete require.cache[require.resolve(file)]
  let exported
  try {
    exported = require(file)
  } catch (err) {
    if (err.code === 'ERR_REQUIRE_ESM') return importFresh(file)
    throw loadError(file, `failed to load: ${err.message}`, err)
  }
  // Node 20.19+ require()s ES module syntax too, but keeps it cached whatever require.cache
  // says; import it again so a changed file is read afresh.
  return exported?.[Symbol.toStringTag] === 'Module' ? importFresh(file) : exported
}

// The "type" of the nearest package.json decides whether a .js file is an ES module.
function packageType (file) {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).type ?? 'commonjs'
    } catch {}
    if (path.dirname(dir) === dir) return 'commonjs'
  }
}

let freshImports = 0 // with Date.now() alone, two imports in one millisecond share a URL

async function importFresh (file) {
  let mod
  try {
    // the query string defeats the ESM cache, so a changed file is read again in one process
    mod = await import(`${pathToFileURL(file).href}?t=${Date.now()}-${++freshImports}`)
  } catch (err) {
    throw loadError(file, `failed to load: ${err.message}`, err)
  }
  return mod.default !== undefined ? mod.default : mod.apps !== undefined ? { apps: mod.apps } : mod
}

function appsOf (exported, file) {
  let apps = exported
  if (isPlainObject(exported) || exported?.[Symbol.toStringTag] === 'Module') {
    for (const key of Object.keys(exported)) {
      if (key !== 'apps') {
        throw new XpmError('XPM_ERR_CONFIG_UNKNOWN_KEY',
          `unknown top-level key "${key}" in ${file}${didYouMean(key, ['apps'])} (expected { apps: [...] })`, { details: { file, key } })
      }
    }
    apps = exported.apps
  }
  if (!Array.isArray(apps)) {
    throw loadError(file, `must export { apps: [...] } or an array of apps, got ${show(exported)}`)
  }
  if (apps.length === 0) throw loadError(file, 'has no apps')
  if (apps.length > MAX_APPS) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `ecosystem file ${file} has ${apps.length} apps; one daemon manages at most ${MAX_APPS}`,
      { details: { file, apps: apps.length, max: MAX_APPS } })
  }
  return apps
}

module.exports = { isEcosystemFile, loadEcosystem }
