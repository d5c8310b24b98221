'use strict'

const path = require('node:path')
const { XpmError } = require('../errors')

// PM2's `pm2 set <app>:<key> <value>` store: XPM_HOME/module_conf.json (PM2's file name), one
// object of string values per app (and, for a key given without an app, a string at the top). The values reach the app as PM2 hands them to its modules:
// each key as an environment variable, and the whole object as JSON in a variable named after
// the app (appEnv). Pure apart from read/write.
const FILE = 'module_conf.json'

// 'echo:config_var' or 'echo.config_var' → { app: 'echo', key: 'config_var' }; 'echo' → { app }.
function splitKey (text) {
  const s = String(text ?? '')
  const at = s.includes(':') ? s.indexOf(':') : s.indexOf('.')
  if (at === -1) return { app: s, key: null }
  return { app: s.slice(0, at), key: s.slice(at + 1) }
}

function checkKey ({ app, key }, given) {
  if (!app) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected <app>:<key> (or <app>.<key>), got "${given}"`)
  if (key !== null && (!key || /[=\0]/.test(key))) throw new XpmError('XPM_ERR_BAD_ARGUMENT', `Expected a key without "=" after "${app}:", got "${given}"`)
}

async function readAppConf (home) {
  const fs = require('node:fs').promises
  let text
  try {
    text = await fs.readFile(path.join(home, FILE), 'utf8')
  } catch (err) {
    if (err.code === 'ENOENT') return {}
    throw new XpmError('XPM_ERR_CONFIG_LOAD', `${path.join(home, FILE)} could not be read: ${err.code}`, { cause: err })
  }
  try {
    const value = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {}
  } catch (err) {
    throw new XpmError('XPM_ERR_CONFIG_LOAD', `${path.join(home, FILE)} is not valid JSON: ${err.message}`, { cause: err })
  }
}

async function writeAppConf (home, conf) {
  const { writeFileAtomic } = require('./atomic-write')
  await writeFileAtomic(path.join(home, FILE), JSON.stringify(conf, null, 2) + '\n')
}

// { app: { key: value } } → the conf with one value set (pure); key null: a value of its own at
// the top (PM2's `pm2 set key1 val1`), given to no app.
function setValue (conf, app, key, value) {
  if (key === null) return { ...conf, [app]: String(value) }
  return { ...conf, [app]: { ...(isObject(conf[app]) ? conf[app] : {}), [key]: String(value) } }
}

function unsetValue (conf, app, key) {
  const out = { ...conf }
  if (key === null) delete out[app]
  else if (isObject(out[app])) {
    out[app] = { ...out[app] }
    delete out[app][key]
    if (!Object.keys(out[app]).length) delete out[app]
  }
  return out
}

// The variables an app gets from its values, as PM2 gives them to modules.
function appEnv (conf, app) {
  const values = conf[app]
  if (!isObject(values) || !Object.keys(values).length) return {}
  return { ...values, [app]: JSON.stringify(values) }
}

function isObject (v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

module.exports = { FILE, splitKey, checkKey, readAppConf, writeAppConf, setValue, unsetValue, appEnv }
