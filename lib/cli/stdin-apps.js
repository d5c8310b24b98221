'use strict'

const { XpmError } = require('../shared/errors')

// `-` as a target (`cat apps.json | xpm start -`, `… | xpm delete -`, as PM2): { apps: [...] },
// an array of apps or one app, as JSON on standard input → the raw apps.
async function readStdinApps ({ stdin = process.stdin, max = 8 * 1024 * 1024 } = {}) {
  if (stdin.isTTY) throw new XpmError('XPM_ERR_BAD_ARGUMENT', '`-` reads apps as JSON from standard input; pipe them in (cat apps.json | xpm start -)')
  let text = ''
  stdin.setEncoding('utf8')
  for await (const chunk of stdin) {
    text += chunk
    if (text.length > max) throw new XpmError('XPM_ERR_CONFIG_LOAD', 'the apps on standard input are larger than 8 MiB')
  }
  let value
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new XpmError('XPM_ERR_CONFIG_LOAD', `the apps on standard input are not valid JSON: ${err.message}`, { cause: err })
  }
  const apps = Array.isArray(value) ? value : value && typeof value === 'object' && value.apps !== undefined ? [].concat(value.apps) : [value]
  if (!apps.length) throw new XpmError('XPM_ERR_CONFIG_LOAD', 'no apps on standard input')
  return apps
}

// `-` among the targets of stop, delete, restart, reload: like an ecosystem file, { file,
// names[, specs] } (names with name_prefix and --env's append_env_to_name applied).
async function stdinTarget ({ envName, withSpecs = false, cwd = process.cwd(), env = process.env, stdin = process.stdin } = {}) {
  const apps = await readStdinApps({ stdin })
  const { nameOf, appLabel, normalizeApp } = require('../shared/config/normalize')
  const { checkAppObject } = require('../shared/config/validate')
  const labels = apps.map((raw, i) => {
    checkAppObject(raw, `app #${i + 1} on standard input`)
    return appLabel(raw, i)
  })
  const names = apps.map((raw, i) => nameOf(raw, { envName, label: labels[i] }))
  const specs = withSpecs ? apps.map((raw, i) => normalizeApp(raw, { baseDir: cwd, env, envName, label: labels[i] })) : undefined
  return { file: 'standard input', names, specs }
}

module.exports = { readStdinApps, stdinTarget }
