'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { XpmError } = require('../errors')
const { show } = require('../units')
const { isPlainObject } = require('./types')
const { didYouMean } = require('./suggest')
const { MAX_APPS } = require('./limits')
const { FILE_KEYS } = require('./options')

// Names PM2 treats as configuration: ecosystem*.{js,cjs,mjs,json}, *.config.{js,cjs,mjs}, any
// .json, YAML (.yml, .yaml: `process.yml`); and TypeScript: ecosystem*.{ts,
// cts,mts}, *.config.{ts,cts,mts}. A plain `server.js` is a script.
const ECOSYSTEM_NAME = /(^ecosystem[^/\\]*\.((c|m)?[jt]s|json)$)|(\.config\.(c|m)?[jt]s$)|(\.json$)|(\.ya?ml$)/i
const TYPESCRIPT = new Set(['.ts', '.cts', '.mts'])

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
  const read = []
  const exported = await readExported(file, read)
  const { apps, notices } = appsOf(exported, file)
  notices.unshift(...read)
  return { file, dir: path.dirname(file), apps, notices, deployEnvs: deployEnvsOf(exported) }
}

// What the file exports, whatever its form (`xpm deploy` reads its `deploy` section from it).
// read: notices about how it was read.
async function readExported (file, read = []) {
  const ext = path.extname(file).toLowerCase()
  if (ext === '.json' || ext === '.json5') return readJson(file, read)
  if (ext === '.yml' || ext === '.yaml') return readYaml(file)
  if (TYPESCRIPT.has(ext) && !process.features.typescript) throw loadError(file, typescriptNeeds(ext))
  if (ext === '.mjs' || ext === '.mts' || ((ext === '.js' || ext === '.ts') && packageType(file) === 'module')) return importFresh(file)
  return requireFresh(file)
}

// TypeScript ecosystem files load as Node loads them: with its own type stripping (erasable
// syntax only: types, interfaces, `satisfies`; no enums or namespaces), on by default from Node
// 22.18 and 23.6. xpm compiles nothing.
function typescriptNeeds (ext) {
  return `is TypeScript (${ext}), which needs a Node that strips types: 22.18 or later, or 23.6 or later ` +
    `(this is Node ${process.version}${process.versions.node.startsWith('22.') ? '; Node 22.6 to 22.17 can with NODE_OPTIONS=--experimental-strip-types' : ''}); ` +
    'or write it as .js, .cjs, .mjs or .json'
}

// JSON is parsed: PM2 evaluates .json files as JavaScript, so the .json files PM2 users have carry
// comments, unquoted keys and trailing commas, which JSON5 reads (the json5 package) without
// running code. Only a file that is neither is read as PM2 reads it, as one JavaScript
// expression (`script: ["a", "b"].join("")`), with a notice: in a context of its own, without
// require or process (not a sandbox: the file is the user's own, as a .js file would be), in a
// Node process of its own killed at the time limit (evaluate-expression.js).
function readJson (file, notices) {
  let text
  try { text = fs.readFileSync(file, 'utf8') } catch (err) { throw loadError(file, `could not be read: ${err.code}`, err) }
  try {
    return JSON.parse(text)
  } catch (strict) {
    try {
      return require('json5').parse(text)
    } catch (err) {
      const { value, timedOut } = require('./evaluate-expression').evaluateExpression(text, file)
      if (timedOut) throw loadError(file, `is not JSON nor JSON5, and read as a JavaScript expression it did not finish within ${timedOut} ms (promise callbacks included)`, err)
      if (value === undefined) throw loadError(file, `is not valid JSON, JSON5 or a JavaScript expression: ${err.message}`, err)
      notices.push({ app: null, key: path.basename(file), message: 'not JSON: read as a JavaScript expression, as PM2 reads .json files; rename it .js to say so' })
      return value
    }
  }
}

// YAML as PM2 reads it (`process.yml`): data, parsed with the yaml package (YAML 1.2, one
// document); anchors and merge keys (`<<: *defaults`) work, custom tags are refused.
function readYaml (file) {
  let text
  try { text = fs.readFileSync(file, 'utf8') } catch (err) { throw loadError(file, `could not be read: ${err.code}`, err) }
  const YAML = require('yaml')
  const doc = YAML.parseDocument(text, { merge: true, uniqueKeys: true })
  if (doc.errors.length) throw loadError(file, `is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`, doc.errors[0])
  try {
    return doc.toJS({ maxAliasCount: 1000 })
  } catch (err) {
    throw loadError(file, `is not valid YAML: ${err.message.split('\n')[0]}`, err)
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

// The shapes PM2 reads: { apps: [...] }, { apps: {one app} }, { pm2: [...] } (older files), an
// array of apps, or one app object ({ name, script }). A `deploy` section is `xpm deploy`'s (here
// only its `env` is read, with `--env`). Any other top-level key is an error with a suggestion, so a
// typo (`app:`) never leaves apps silently unread.
function appsOf (exported, file) {
  const notices = []
  let apps = exported
  if (isPlainObject(exported) || exported?.[Symbol.toStringTag] === 'Module') {
    const keys = Object.keys(exported)
    const list = keys.find((k) => k === 'apps') ?? keys.find((k) => k === 'pm2')
    if (list === undefined && looksLikeApp(exported)) {
      apps = [exported]
    } else {
      const servers = staticApps(exported.static)
      for (const key of keys) {
        if (key === list || key === 'static') continue
        const known = FILE_KEYS.find((k) => k.key === key)
        if (key === 'deploy') continue
        if (known?.notice) {
          notices.push({ app: null, key, message: known.notice })
          continue
        }
        throw new XpmError('XPM_ERR_CONFIG_UNKNOWN_KEY',
          `unknown top-level key "${key}" in ${file}${didYouMean(key, FILE_KEYS.map((k) => k.key))} (expected { apps: [...] })`, { details: { file, key } })
      }
      apps = list === undefined ? undefined : exported[list]
      if (isPlainObject(apps)) apps = [apps]
      if (servers.length) apps = [...(Array.isArray(apps) ? apps : []), ...servers]
    }
  }
  if (!Array.isArray(apps)) {
    throw loadError(file, `must export { apps: [...] }, an array of apps or one app object, got ${show(exported)}`)
  }
  if (apps.length === 0) throw loadError(file, 'has no apps')
  if (apps.length > MAX_APPS) {
    throw new XpmError('XPM_ERR_CONFIG_INVALID', `ecosystem file ${file} has ${apps.length} apps; one daemon manages at most ${MAX_APPS}`,
      { details: { file, apps: apps.length, max: MAX_APPS } })
  }
  return { apps, notices }
}

// PM2's `static: [{ path, port, spa, basic_auth, … }]`: apps running xpm's static file server.
function staticApps (list) {
  if (list === undefined) return []
  return (Array.isArray(list) ? list : [list]).map((s) => require('../serve/static-server').staticApp(s))
}

// PM2 reads `deploy.<env>.env` with `--env <env>`, under the apps' own env: { env: vars }.
function deployEnvsOf (exported) {
  const deploy = isPlainObject(exported) ? exported.deploy : null
  if (!isPlainObject(deploy)) return {}
  return Object.fromEntries(Object.entries(deploy).filter(([, target]) => isPlainObject(target?.env)).map(([name, target]) => [name, target.env]))
}

// One app object at the top of the file: it names a script (or PM2's aliases of it).
function looksLikeApp (object) {
  return ['script', 'exec', 'cmd', 'command'].some((k) => typeof object[k] === 'string')
}

module.exports = { isEcosystemFile, loadEcosystem, readExported }
