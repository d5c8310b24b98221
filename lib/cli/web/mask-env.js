'use strict'

// What the dashboard shows of an app's environment (PM2's answer on `GET /` and `/pm2`). Pure.
// `names`: the names only, every value hidden (--read-only: a looker sees no value at all).
// `secrets`: the values, except those whose name says secret and the password of a URL.
// `all`: everything (the full dashboard asked with ?reveal=1).

const HIDDEN = '[hidden]'
const SECRET_NAME = /KEY|SECRET|TOKEN|PASS|CREDENTIAL|PRIVATE|AUTH/i
// scheme://user:password@host: the password goes, the rest stays readable
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)([^\s@/]+)@/gi

function maskValue (name, value, mode) {
  if (mode === 'all') return value
  if (mode === 'names' || SECRET_NAME.test(name)) return HIDDEN
  return typeof value === 'string' ? value.replace(URL_PASSWORD, `$1${HIDDEN}@`) : value
}

function maskEnv (env, mode) {
  if (!env || typeof env !== 'object') return env
  const out = {}
  for (const [name, value] of Object.entries(env)) out[name] = maskValue(name, value, mode)
  return out
}

module.exports = { maskEnv, maskValue, HIDDEN, SECRET_NAME }
